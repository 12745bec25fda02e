-- An active document without chunks is invisible to search; only quarantined documents may have none.
select documents.document_id, documents.path
from {{ ref('stg_lakehouse__documents') }} as documents
left join {{ ref('stg_lakehouse__chunks') }} as chunks
    on documents.document_id = chunks.document_id
left join {{ ref('stg_lakehouse__quarantine') }} as quarantine
    on documents.document_id = quarantine.document_id
where documents.is_current
    and documents.status = 'active'
    and chunks.chunk_id is null
    and quarantine.document_id is null
