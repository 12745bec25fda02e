-- The chunks the API serves, with their context; only chunks of current active documents.
with chunks as (
    select * from {{ ref('stg_lakehouse__chunks') }}
),

contexts as (
    select * from {{ ref('stg_lakehouse__contexts') }}
),

documents as (
    select document_id from {{ ref('catalog') }}
    where status = 'active'
),

final as (
    select
        chunks.chunk_id,
        chunks.document_id,
        chunks.ordinal,
        chunks.heading_path,
        chunks.text,
        contexts.context,
        contexts.context_source,
        chunks.path,
        chunks.title,
        chunks.doc_type,
        chunks.access_groups,
        chunks.pages,
        chunks.char_start,
        chunks.char_end,
        chunks.text_chars
    from chunks
    inner join documents on chunks.document_id = documents.document_id
    left join contexts on chunks.chunk_id = contexts.chunk_id
)

select * from final
