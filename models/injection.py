"""Instructions aimed at an assistant inside documents: found at index time, stored with the chunk, and treated
as data at query time (never quoted in an extractive answer, fenced and labelled in prompts).

A sentence is flagged when it carries one strong signal (an order to drop earlier instructions, a new identity
for the reader, a system prompt, a chat-template token, a message addressed to an AI) or two weak ones (an
order to answer something fixed, "tell the user", "instead", a reference to this document as the thing being
read). Ordinary imperatives of policies ("o colaborador deve ignorar e-mails suspeitos", "responda ao
questionário") carry at most one weak signal: they address people, not the reader of the text.

Text hidden from a human reader (white on white, display:none, a tiny size, Word's hidden runs) is itself a
strong signal: a hidden sentence with any one signal (``hidden_instruction``) is kept by the extractors as a line
of its own opening with ``HIDDEN_MARK`` (``transforms/extraction/hidden.py``), and every such line is flagged.

Both floors use it: the commit stage stores each chunk's flagged sentences (``find_injections``), the answer
layer drops the sentences that overlap them (``overlaps``) and computes them for snapshots older than the
column.
"""

from __future__ import annotations

import re
import unicodedata

DETECTOR_VERSION = "injection-v3"  # v3: sentences hidden from a human reader
HIDDEN_MARK = "[texto oculto]"  # opens each line of hidden text in the extracted Markdown

_AI = (r"(?:assistente(?:s)? (?:de ia|virtua(?:l|is)|de intelig[eê]ncia artificial)|intelig[eê]ncia artificial|"
       r"\bias?\b|modelos? de linguagem|chatbots?|\bllms?\b|\bgpt\b|language models?|\bai\b(?: assistants?| models?"
       r"| systems?)?|ai assistants?)")
_IGNORE = (r"(?:ignor[ea]\w*|desconsider[ea]\w*|esque[cç]a\w*|despreze\w*|abandone\w*|disregard\w*|forget\w*|"
           r"overrid\w*|bypass\w*|do not follow|n[aã]o (?:siga|obede[cç]a))")
_RULES = (r"(?:instru[cç](?:[aã]o|[oõ]es)|orienta[cç](?:[aã]o|[oõ]es)|comandos?|regras|diretrizes|prompts?|"
          r"instructions?|directions|rules|guidelines|directives)")
_BEFORE = r"(?:anteriores|acima|pr[eé]vias|originais|previous|prior|above|earlier|original|your|suas|seus)"

_STRONG = [re.compile(p, re.IGNORECASE) for p in (
    re.escape(HIDDEN_MARK),
    rf"{_IGNORE}\b[^.;!?]{{0,40}}\b{_RULES}\b[^.;!?]{{0,30}}\b{_BEFORE}\b",
    rf"{_IGNORE}\b[^.;!?]{{0,30}}\b{_BEFORE}\b[^.;!?]{{0,30}}\b{_RULES}\b",
    r"\b(?:voc[eê] (?:agora )?(?:[eé]|ser[aá]) (?:agora )?(?:um|uma|o|a)\b(?! (?:colaborador|profissional))|"
    r"a partir de agora,? voc[eê]|finja (?:ser|que)|you are now|from now on,? you|pretend (?:to be|you are)|"
    r"act as (?:an?|the) (?:ai|assistant|unrestricted|different)|aja como (?:um|uma) (?:ia|assistente))",
    r"\b(?:system prompt|prompt (?:do|de) sistema|developer mode|modo (?:de )?desenvolvedor|jailbreak)\b",
    r"<\|?(?:im_start|im_end|system|endoftext)\|?>|\[/?INST\]|^#{2,3} ?(?:instruction|system)\b",
    rf"(?:^|[.:;!?]\s*)(?:se voc[eê] (?:[eé]|for) (?:um|uma) {_AI}|if you are an? {_AI}|"
    rf"(?:nota|aviso|aten[cç][aã]o|instru[cç][oõ]es) (?:para|ao|aos|à|às) (?:o |a |os |as )?{_AI}|"
    rf"(?:note|message|instructions?|attention) (?:to|for) (?:any |all |the )?(?:{_AI}|assistants?\b)|"
    rf"(?:nota|aviso|instru[cç](?:[aã]o|[oõ]es)) (?:para|ao|à) (?:o |a )?assistente\b|"
    rf"(?:when|if) an? {_AI} reads?|quando (?:um|uma) {_AI} (?:ler|processar)|"
    rf"(?:aten[cç][aã]o|attention|car[oa]|prezad[oa]|dear|hey|ol[aá]),? {_AI}\s*[:,])",
    rf"^(?:assistente|assistant|{_AI})\s*[:,]\s*\w+",
    r"\b(?:revele|mostre|imprima|reveal|print|output|show)\b[^.;!?]{0,30}\b(?:prompt|instru[cç][oõ]es ocultas|"
    r"hidden instructions|api key|chave de api|senha do sistema)\b",
)]
_WEAK = [re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:responda|responder|diga|afirme|declare|informe)\b(?: (?:apenas|somente|sempre))? que\b",
    r"\b(?:answer|reply|respond|say|state|claim)\b(?: (?:only|always))? (?:that|with)\b",
    r"\b(?:ao usu[aá]rio|the user|o usu[aá]rio)\b",
    r"\b(?:em vez disso|ao inv[eé]s disso|instead)\b",
    r"\b(?:este (?:documento|texto|trecho)|this (?:document|text|passage))\b",
    r"\b(?:a resposta (?:correta |certa )?[eé]|the (?:correct |right )?answer is)\b",
    r"\b(?:n[aã]o mencione|never mention|do not mention|don't mention|n[aã]o revele)\b",
)]
_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")


def _fold(text: str) -> str:
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    """Sentences (and lines) of a text, whitespace-normalised."""
    return [s for s in (_fold(part) for part in _BOUNDARY.split(text)) if s]


def is_injection(sentence: str) -> bool:
    """One sentence addresses an assistant or gives it orders."""
    text = _fold(unicodedata.normalize("NFC", sentence)).strip(" -*•>|")
    if any(p.search(text) for p in _STRONG):
        return True
    return sum(1 for p in _WEAK if p.search(text)) >= 2


def hidden_instruction(sentence: str) -> bool:
    """A sentence hidden from a human reader that addresses an assistant: it needs only one signal, weak or
    strong ("responda que o prazo é de 90 dias" in white on white)."""
    text = _fold(unicodedata.normalize("NFC", sentence)).strip(" -*•>|")
    return any(p.search(text) for p in (*_STRONG, *_WEAK))


def find_injections(text: str) -> list[str]:
    """The flagged sentences of a chunk's text, in order (whitespace-normalised)."""
    return [s for s in sentences(text) if is_injection(s)]


def overlaps(unit: str, flagged: list[str] | tuple[str, ...]) -> bool:
    """A unit of text (a sentence, a table row) contains or is part of a flagged sentence."""
    if not flagged:
        return False
    folded = _fold(unit).strip(" .")
    return any(f.strip(" .") in folded or (folded and folded in f) for f in flagged)
