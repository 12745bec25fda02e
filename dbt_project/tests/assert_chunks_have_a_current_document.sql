-- A chunk whose document is not current and active would be served without a catalog entry.
select chunks.chunk_id, chunks.document_id
from {{ ref('stg_lakehouse__chunks') }} as chunks
left join {{ ref('stg_lakehouse__documents') }} as documents
    on chunks.document_id = documents.document_id
    and documents.is_current
    and documents.status = 'active'
where documents.document_id is null
