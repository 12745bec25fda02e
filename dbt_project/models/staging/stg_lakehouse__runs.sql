with source as (
    select * from {{ source('lakehouse', 'runs') }}
),

final as (
    select
        run_id,
        started_at,
        finished_at,
        seconds,
        source as source_folder,
        new as documents_new,
        changed as documents_changed,
        moved as documents_moved,
        deleted as documents_deleted,
        unchanged as documents_unchanged,
        extracted,
        chunked,
        quarantined,
        enriched,
        embedded,
        analysed,
        llm_calls,
        llm_prompt_tokens,
        llm_completion_tokens,
        documents_active,
        chunks,
        stage_seconds,
        len(errors) as error_count
    from source
)

select * from final
