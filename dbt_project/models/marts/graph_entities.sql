with entities as (
    select * from {{ ref('stg_graph__entities') }}
),

final as (
    select
        entity_id,
        name,
        canonical,
        entity_type,
        description,
        aliases,
        chunk_ids,
        document_ids,
        len(document_ids) as document_count,
        frequency,
        degree
    from entities
)

select * from final
