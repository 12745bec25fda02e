with source as (
    select * from {{ source('lakehouse', 'chunks') }}
),

final as (
    select
        chunk_id,
        document_id,
        content_hash,
        ordinal,
        heading_path,
        text,
        length(text) as text_chars,
        char_start,
        char_end,
        pages,
        path,
        title,
        doc_type,
        access_groups
    from source
)

select * from final
