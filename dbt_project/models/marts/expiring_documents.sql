-- Active documents whose review is due within `expiring_within_days` of `as_of` (overdue ones included).
{%- set as_of = "date '" ~ var('as_of') ~ "'" if var('as_of') else "current_date" %}

with catalog as (
    select * from {{ ref('catalog') }}
    where status = 'active' and next_review_date is not null
),

final as (
    select
        document_id,
        path,
        title,
        doc_type,
        version,
        responsible,
        approver,
        department,
        last_review_date,
        next_review_date,
        {{ as_of }} as as_of,
        date_diff('day', {{ as_of }}, next_review_date) as days_until_review,
        next_review_date < {{ as_of }} as is_overdue,
        access_groups
    from catalog
    where next_review_date <= {{ as_of }} + to_days({{ var('expiring_within_days') | int }})
)

select * from final
order by next_review_date, path
