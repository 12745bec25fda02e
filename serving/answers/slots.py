"""Slots a question asks of a document, beside the kinds of fact (``grading``'s amounts, deadlines...): who
supplies it, who manages it, how long it is in force, what it is about, when it is next reviewed. Each slot is
(how a question asks for it, how a passage fills it), in Portuguese and English; a passage that fills the slot
covers the words asking for it ("fornecedor" is covered by "CONTRATADA: Higiplus Ltda."), one that does not
cannot answer it (unless the question asks several things).

A slot whose ``CONTEXT`` flag is set is also filled by the section the passage sits in (the "1. Objetivo"
section answers "do que trata o documento").
"""

from __future__ import annotations

import re

__all__ = ["CONTEXT", "SLOTS"]

_I = re.IGNORECASE
_PARTY = r"contratad[ao]|fornecedor(?:a)?|prestador(?:a)?|supplier|contractor|vendor|provider"
SLOTS: dict[str, tuple[re.Pattern, re.Pattern]] = {
    "supplier": (
        re.compile(r"\b(?:qual|quem)\b[^?]{0,20}\b(?:fornecedor(?:a|es)?|contratad[ao]|prestador(?:a)?)\b|"
                   r"\bque (?:fornecedor(?:a)?|prestador(?:a)?)\b|\b(?:which|what) (?:supplier|vendor)\b|"
                   # a company asked about a contract the question names is its supplier ("quem é a empresa do
                   # CT-2024-0187", "which company ... its monthly contract value"); elsewhere a company is any
                   r"(?:\b(?:qual|quem)\b[^?]{0,20}|\bque )\bempresa\b(?=[^?]*\b(?:contrat\w*|ct-\d))|"
                   r"\b(?:contrat\w*|ct-\d[\w-]*)\b[^?]{0,30}\b(?:qual|que)\s+empresa\b|"  # "o CT-X é de qual empresa"
                   r"\b(?:which|what) company\b(?=[^?]*\b(?:contract\w*|ct-\d))|"
                   r"\bwho is the (?:supplier|vendor|contractor|provider)\b|\bwho (?:supplies|provides)\b", _I),
        # a party line ("CONTRATADA: ...", "Supplier: ...") or a company's name ("... Ltda.", "... S.A.")
        re.compile(rf"\b(?:{_PARTY})\s*:\s*\S|(?-i:\b(?:Ltda|S\.\s?A\.|S/A|EIRELI|Inc|LLC|Ltd)(?!\w))", _I)),
    "manager": (
        re.compile(r"\b(?:quem|qual)\b[^?]{0,25}\bgestor(?:a)?\b|\bgest(?:or|ora|[aã]o) do contrato\b|"
                   r"\bfiscal do contrato\b|\bcontract manager\b|\bwho manages\b", _I),
        re.compile(r"\bgest(?:[aã]o|or|ora)\s+do\s+contrato\b|\bfiscaliza[cç][aã]o\s+(?:t[eé]cnica\s+)?do contrato\b|"
                   r"\bcontract manager\b|\bmanaged by\b", _I)),
    "term": (
        re.compile(r"\bvig[eê]ncia\b|\bdura[cç][aã]o do contrato\b|\bcontract term\b|"
                   r"\bterm of (?:the |this )?contract\b|"
                   r"\bhow long (?:does|is) the contract\b|\bat[eé] quando (?:vale|vigora)\b|"
                   r"\b(?:vale|vigora|v[aá]lid[oa])\s+at[eé] quando\b", _I),
        # "vigorará por 36 meses", "vigência de 24 meses", "vigência: ...", not "antes de 12 meses de vigência"
        re.compile(r"\bvigor\w*|\bvig[eê]ncia\s*(?::|de\s+\d|do contrato\s+(?:é|ser[aá]))|\bprazo de vig[eê]ncia\b|"
                   r"\b(?:term|duration) of\s+\d|\bremains? in (?:force|effect)\b|\bvalid (?:for|until)\b", _I)),
    "subject": (
        re.compile(r"\bdo que (?:se )?trata\b|\bsobre o que (?:é|trata)\b|"
                   r"\bqual (?:é )?(?:o|a) (?:objetivo|objeto|escopo|assunto|prop[oó]sito|finalidade)\b|"
                   r"\bwhat is\b[^?]*\babout\b|\bwhat does\b[^?]*\bcover\b|\b(?:purpose|scope) of\b", _I),
        # the objective, not the scope (which lists what it covers)
        re.compile(r"\b(?:objetivos?|objeto|finalidade|prop[oó]sito|purpose|objectives?|introdu[cç][aã]o|"
                   r"introduction|resumo|summary)\b", _I)),
    "review": (
        re.compile(r"\b(?:due for review|next review|review date|pr[oó]xima revis[aã]o|revis[aã]o prevista|"
                   r"(?:deve|precisa) ser revisad[oa])\b", _I),
        re.compile(r"\b(?:next review|review date|pr[oó]xima revis[aã]o|revis[aã]o prevista)\b", _I)),
}
CONTEXT = frozenset({"subject"})
