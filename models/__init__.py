"""What the index and query sides must agree on: text analysis, BM25 format, embeddings, reranker, LLM client."""
