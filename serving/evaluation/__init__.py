"""Retrieval evaluation: BEIR-format sets and the sample corpus's labelled questions."""
