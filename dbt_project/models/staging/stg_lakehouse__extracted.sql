with source as (
    select * from {{ source('lakehouse', 'extracted') }}
),

final as (
    select
        content_hash,
        title,
        version,
        issue_date,
        last_review_date,
        next_review_date,
        responsible,
        approver,
        department,
        metadata_source,
        method as extraction_method,
        page_count,
        length(markdown) as markdown_chars,
        coalesce(len(warnings), 0) as warning_count
    from source
)

select * from final
