"""The query side: retrieval, query modes, answers, the HTTP API, evaluation and the publish gate."""
