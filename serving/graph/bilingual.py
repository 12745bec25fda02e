"""Portuguese <-> English term bridges for the global themes (cross-language retrieval by a glossary).

A corpus-wide question in one language must also reach the documents written in the other: BM25 and the
themes' sentence filter compare analysed terms, so "prazo de pagamento" never meets "payment terms". The
glossary below pairs common words of organisational documents (governance, contracts, security, privacy,
finance, HR, clinical quality); ``bridge`` maps each analysed term of a question to the analysed terms of its
translations, and ``translate`` writes those translations as a query in the other language. Terms that are
the same in both languages (codes, acronyms such as ANPD or MFA) need no entry: they match as they are.
"""

from __future__ import annotations

from functools import cache

from models.analysis import analyze

OTHER = {"pt": "en", "en": "pt"}
# (Portuguese words, English words): every word on one side translates every word on the other.
PAIRS: tuple[tuple[str, str], ...] = (
    ("prazo prazos", "deadline deadlines term terms"),
    ("notificação notificar notifica", "notification notify report reported"),
    ("comunicação comunicar comunicado", "communication report reported"), ("incidente", "incident"),
    ("segurança", "security"), ("informação informações", "information"), ("pagamento pagar pago", "payment pay paid"),
    ("fornecedor fornecedores", "supplier suppliers vendor vendors"), ("terceiro terceiros", "third-party suppliers"),
    ("requisito requisitos exigência", "requirement requirements required"), ("contrato", "contract"),
    ("política", "policy"), ("dados", "data"), ("titular titulares", "subjects holder"),
    ("resposta responder", "response respond answer"), ("solicitação", "request"), ("risco", "risk"),
    ("multa penalidade", "penalty fine"), ("valor", "value amount"), ("meta metas", "target goal"),
    ("indicador", "indicator"), ("auditoria auditar", "audit"), ("acesso", "access"), ("senha", "password"),
    ("criptografia", "encryption"), ("registro registros", "log logs record records"), ("retenção", "retention"),
    ("revisão", "review"), ("aprovação aprovar", "approval approve"), ("responsável", "owner responsible"),
    ("colaborador colaboradores", "employee employees staff"), ("paciente pacientes", "patient patients"),
    ("treinamento", "training"), ("certificado certificação", "certificate certification"),
    ("avaliação avaliar", "assessment assess evaluation"), ("subcontratação", "subcontracting"),
    ("rescisão", "termination"), ("renovação", "renewal"), ("reajuste", "adjustment"),
    ("nota fiscal fatura", "invoice"), ("dia dias", "day days"), ("hora horas", "hour hours"),
    ("útil úteis", "business"), ("mês meses", "month months"), ("ano anos", "year years"), ("semana", "week"),
    ("anual anualmente", "annual yearly"), ("mensal", "monthly"), ("férias", "vacation leave"),
    ("reembolso", "reimbursement refund"), ("viagem", "travel trip"), ("despesa despesas", "expense expenses"),
    ("salário", "salary"), ("benefício", "benefit"), ("trabalho remoto", "remote work"),
    ("equipamento", "equipment device"), ("manutenção", "maintenance"), ("limpeza", "cleaning"),
    ("resíduo resíduos", "waste"), ("descarte eliminação exclusão", "disposal deletion"), ("devolução", "return"),
    ("vulnerabilidade", "vulnerability"), ("teste", "test"), ("intrusão", "penetration intrusion"),
    ("autenticação", "authentication"), ("conta contas", "account accounts"), ("usuário", "user"),
    ("sistema sistemas", "system systems"), ("rede", "network"), ("nuvem", "cloud"), ("continuidade", "continuity"),
    ("recuperação", "recovery"), ("seguro", "insurance"), ("conformidade", "compliance"),
    ("sanção sanções", "sanction sanctions"), ("exceção", "exception"), ("prévia prévio", "prior"),
    ("obrigação", "obligation"), ("responsabilidade", "responsibility liability"),
    ("confidencialidade", "confidentiality"), ("privacidade", "privacy"), ("proteção", "protection"),
    ("vazamento violação", "leak leakage breach"), ("ameaça", "threat"), ("classificação", "classification"),
    ("criticidade", "criticality"), ("gestor gerente", "manager"), ("comitê", "committee"),
    ("presente presentes brinde", "gift gifts"), ("doação", "donation"), ("diligência", "diligence"),
    ("integridade", "integrity"), ("corrupção", "corruption"), ("suborno", "bribery"), ("vacinação", "vaccination"),
    ("higienização", "hygiene"), ("adesão", "adherence"), ("infecção", "infection"), ("medicamento", "medication"),
    ("amostra", "sample"), ("documento documentos", "document documents"), ("procedimento", "procedure"),
    ("instrução", "instruction"), ("formulário", "form"), ("relatório", "report"), ("reunião", "meeting"),
    ("cadastro cadastramento", "registration onboarding"), ("compra compras", "purchase procurement"),
)


@cache
def _bridges(words: bool = False) -> dict[str, dict[str, frozenset[str]]]:
    """language -> analysed term -> the analysed terms (``words``: the words) of its translations."""
    out: dict[str, dict[str, set[str]]] = {"pt": {}, "en": {}}
    for pt, en in PAIRS:
        sides = {"pt": pt, "en": en}
        for language, other in OTHER.items():
            targets = set(sides[other].split()) if words else set(analyze(sides[other], other))
            for term in analyze(sides[language], language):
                out[language].setdefault(term, set()).update(targets)
    return {lang: {t: frozenset(v) for t, v in terms.items()} for lang, terms in out.items()}


def bridge(terms: list[str] | set[str], language: str) -> dict[str, frozenset[str]]:
    """Each analysed term of ``language`` -> its analysed translations (itself included: codes and acronyms
    are written alike in both languages)."""
    table = _bridges().get(language, {})
    return {t: frozenset({t} | table.get(t, frozenset())) for t in terms}


def translate(question: str, language: str) -> str:
    """The question's translatable terms as a query in the other language ("" when none translates)."""
    table = _bridges(words=True).get(language, {})
    return " ".join(sorted({w for t in analyze(question, language) for w in table.get(t, ())}))
