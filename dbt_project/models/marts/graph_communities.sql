with communities as (
    select * from {{ ref('stg_graph__communities') }}
),

final as (
    select
        community_id,
        level,
        parent_id,
        entity_ids,
        relationship_ids,
        chunk_ids,
        len(entity_ids) as entity_count,
        content_hash
    from communities
)

select * from final
