-- One row per finished run, newest first, with what it changed and how long it took.
with runs as (
    select * from {{ ref('stg_lakehouse__runs') }}
),

final as (
    select
        run_id,
        started_at,
        finished_at,
        seconds,
        documents_new,
        documents_changed,
        documents_moved,
        documents_deleted,
        documents_unchanged,
        documents_new + documents_changed + documents_moved + documents_deleted as documents_touched,
        extracted,
        chunked,
        enriched,
        embedded,
        analysed,
        quarantined,
        documents_active,
        chunks,
        llm_calls,
        llm_prompt_tokens + llm_completion_tokens as llm_tokens,
        error_count,
        stage_seconds,
        row_number() over (order by finished_at desc) = 1 as is_latest
    from runs
)

select * from final
order by finished_at desc
