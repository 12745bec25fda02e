with source as (
    select * from {{ source('lakehouse', 'contexts') }}
),

final as (
    select
        chunk_id,
        context,
        context_source,
        model as context_model,
        prompt_version
    from source
)

select * from final
