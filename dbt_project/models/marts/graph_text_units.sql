with text_units as (
    select * from {{ ref('stg_graph__text_units') }}
),

final as (
    select
        chunk_id,
        document_id,
        entity_ids,
        relationship_ids,
        len(entity_ids) as entity_count
    from text_units
)

select * from final
