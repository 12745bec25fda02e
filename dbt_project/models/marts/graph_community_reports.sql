with reports as (
    select * from {{ ref('stg_graph__community_reports') }}
),

final as (
    select
        community_id,
        level,
        title,
        summary,
        findings,
        len(findings) as finding_count,
        rating,
        report_source,
        chunk_ids,
        access_group_sets,
        content_hash
    from reports
)

select * from final
