with source as (
    select * from {{ source('graph', 'aliases') }}
),

final as (
    select
        alias,
        canonical,
        source as alias_source,
        reason
    from source
)

select * from final
