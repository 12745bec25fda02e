with source as (
    select * from {{ source('graph', 'community_reports') }}
),

final as (
    select
        community_id,
        level,
        content_hash,
        title,
        summary,
        findings,
        rating,
        source as report_source,
        chunk_ids,
        access_group_sets
    from source
)

select * from final
