with source as (
    select * from {{ source('graph', 'relationships') }}
),

final as (
    select
        relationship_id,
        source_id,
        target_id,
        description,
        weight,
        chunk_ids,
        count as evidence_count
    from source
)

select * from final
