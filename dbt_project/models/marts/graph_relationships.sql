with relationships as (
    select * from {{ ref('stg_graph__relationships') }}
),

entities as (
    select entity_id, name from {{ ref('stg_graph__entities') }}
),

final as (
    select
        relationships.relationship_id,
        relationships.source_id,
        sources.name as source_name,
        relationships.target_id,
        targets.name as target_name,
        relationships.description,
        relationships.weight,
        relationships.chunk_ids,
        relationships.evidence_count
    from relationships
    inner join entities as sources on relationships.source_id = sources.entity_id
    inner join entities as targets on relationships.target_id = targets.entity_id
)

select * from final
