-- One row per current document (active or quarantined): governance metadata, extraction facts, chunk count.
with documents as (
    select * from {{ ref('stg_lakehouse__documents') }}
    where is_current and status != 'deleted'
),

extracted as (
    select * from {{ ref('stg_lakehouse__extracted') }}
),

chunks as (
    select
        document_id,
        count(*) as chunk_count,
        sum(text_chars) as chunk_chars
    from {{ ref('stg_lakehouse__chunks') }}
    group by document_id
),

descriptions as (
    select * from {{ ref('stg_lakehouse__descriptions') }}
),

quarantine as (
    select
        document_id,
        min(stage) as quarantine_stage,
        min(reason) as quarantine_reason
    from {{ ref('stg_lakehouse__quarantine') }}
    group by document_id
),

final as (
    select
        documents.document_id,
        documents.path,
        coalesce(nullif(extracted.title, ''), regexp_extract(documents.path, '([^/]+?)(\.[^./]*)?$', 1)) as title,
        documents.doc_type,
        documents.access_groups,
        documents.status,
        coalesce(quarantine.quarantine_reason, documents.status_reason) as status_reason,
        quarantine.quarantine_stage,
        extracted.version,
        extracted.issue_date,
        extracted.last_review_date,
        extracted.next_review_date,
        extracted.responsible,
        extracted.approver,
        extracted.department,
        extracted.metadata_source,
        descriptions.summary,
        coalesce(descriptions.tags, []::varchar[]) as tags,
        coalesce(descriptions.entities, []::varchar[]) as entities,
        descriptions.summary_source,
        extracted.extraction_method,
        extracted.page_count,
        documents.detected_type,
        documents.size_bytes,
        documents.modified_at,
        coalesce(chunks.chunk_count, 0) as chunk_count,
        coalesce(chunks.chunk_chars, 0) as chunk_chars,
        documents.content_hash,
        documents.first_seen_run,
        documents.last_seen_run
    from documents
    left join extracted on documents.content_hash = extracted.content_hash
    left join chunks on documents.document_id = chunks.document_id
    left join descriptions on documents.document_id = descriptions.document_id
    left join quarantine on documents.document_id = quarantine.document_id
)

select * from final
