-- The vectors themselves stay in Parquet (the API memory-maps them); this view carries their shape.
with source as (
    select * from {{ source('lakehouse', 'vectors') }}
),

metadata as (
    select
        max(case when decode(key) = 'dim' then cast(decode(value) as integer) end) as index_dimension,
        max(case when decode(key) = 'model_id' then decode(value) end) as model_id
    from parquet_kv_metadata('{{ env_var('LAKERAG_DBT_TABLES') }}/vectors.parquet')
),

final as (
    select
        source.chunk_id,
        source.embed_key,
        len(source.vector) as dimension,
        metadata.index_dimension,
        metadata.model_id
    from source
    cross join metadata
)

select * from final
