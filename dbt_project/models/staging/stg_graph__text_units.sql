with source as (
    select * from {{ source('graph', 'text_units') }}
),

final as (
    select
        chunk_id,
        document_id,
        entity_ids,
        relationship_ids
    from source
)

select * from final
