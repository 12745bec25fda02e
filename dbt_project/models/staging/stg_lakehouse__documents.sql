with source as (
    select * from {{ source('lakehouse', 'documents') }}
),

final as (
    select
        document_id,
        content_hash,
        path,
        size_bytes,
        modified_at,
        detected_type,
        doc_type,
        access_groups,
        status,
        status_reason,
        first_seen_run,
        last_seen_run,
        is_current
    from source
)

select * from final
