-- Every vector has the dimension the index declares (a mixed model would return garbage neighbours).
select chunk_id, dimension, index_dimension
from {{ ref('stg_lakehouse__vectors') }}
where dimension is null
    or index_dimension is null
    or index_dimension <= 0
    or dimension != index_dimension
