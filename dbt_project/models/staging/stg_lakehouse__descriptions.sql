with source as (
    select * from {{ source('lakehouse', 'descriptions') }}
),

final as (
    select
        document_id,
        content_hash,
        summary,
        tags,
        entities,
        summary_source,
        model as summary_model,
        prompt_version as summary_prompt_version
    from source
)

select * from final
