with source as (
    select * from {{ source('graph', 'entities') }}
),

final as (
    select
        entity_id,
        name,
        canonical,
        type as entity_type,
        description,
        aliases,
        chunk_ids,
        document_ids,
        frequency,
        degree
    from source
)

select * from final
