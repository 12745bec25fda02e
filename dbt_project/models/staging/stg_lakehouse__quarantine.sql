with source as (
    select * from {{ source('lakehouse', 'quarantine') }}
),

final as (
    select
        document_id,
        path,
        content_hash,
        stage,
        reason,
        detected_type,
        size_bytes,
        run_id
    from source
)

select * from final
