-- One row describing the snapshot's health: what serving would miss or show wrongly.
with catalog as (
    select * from {{ ref('catalog') }}
),

chunks as (
    select * from {{ ref('chunks') }}
),

vectors as (
    select * from {{ ref('stg_lakehouse__vectors') }}
),

final as (
    select
        (select count(*) from catalog where status = 'active') as documents_active,
        (select count(*) from catalog where status = 'quarantined') as documents_quarantined,
        (select count(*) from chunks) as chunks,
        (select count(*) from chunks where coalesce(context, '') = '') as chunks_without_context,
        (select count(*) from catalog where status = 'active' and chunk_count = 0) as active_documents_without_chunks,
        (select count(*) from catalog where status = 'active' and next_review_date is null)
            as documents_without_review_date,
        (select count(*) from catalog where status = 'active' and responsible is null)
            as documents_without_responsible,
        (select count(*) from {{ ref('expiring_documents') }}) as documents_expiring,
        (select round(avg(text_chars), 1) from chunks) as mean_chunk_chars,
        (select max(index_dimension) from vectors) as vector_dimension,
        (select max(model_id) from vectors) as embedding_model,
        (select count(*) from {{ ref('graph_entities') }}) as graph_entities,
        (select count(*) from {{ ref('graph_relationships') }}) as graph_relationships,
        (select count(*) from {{ ref('graph_community_reports') }}) as graph_community_reports
)

select * from final
