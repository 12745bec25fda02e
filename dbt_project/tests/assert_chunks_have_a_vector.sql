-- Dense search needs one vector per served chunk (and none for chunks that are gone).
select coalesce(chunks.chunk_id, vectors.chunk_id) as chunk_id
from {{ ref('stg_lakehouse__chunks') }} as chunks
full outer join {{ ref('stg_lakehouse__vectors') }} as vectors
    on chunks.chunk_id = vectors.chunk_id
where chunks.chunk_id is null or vectors.chunk_id is null
