with source as (
    select * from {{ source('graph', 'communities') }}
),

final as (
    select
        community_id,
        level,
        parent_id,
        entity_ids,
        relationship_ids,
        chunk_ids,
        content_hash
    from source
)

select * from final
