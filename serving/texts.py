"""The fixed refusal, written once for the whole query side (the answer layer and the graph modes)."""

from __future__ import annotations

NOT_FOUND = {
    "pt": "Não encontrei essa informação nos documentos disponíveis.",
    "en": "I could not find this information in the available documents.",
}
