"""Word lists and regular expressions of the rule-based extractor (Portuguese first, English too).

Every list is accent-folded and lower-case, so it is compared with ``fold(word)``. There is no offline NER or
part-of-speech tagger for Portuguese, so types come from heads ("Secretaria", "Hospital", "Lei"), suffixes
("Ltda.", "S.A.", "Inc."), honorifics ("Dr.", "Dra.", "Enf.") and a list of common given names."""

from __future__ import annotations

import re

from lakehouse.text import fold  # noqa: F401 - the one fold, re-exported for the graph modules

_COMBINING = re.compile(r"[\u0300-\u036f]+")




def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Lower-case words allowed inside a capitalised name: "Secretaria de Estado da Saúde", "Vale do Ipê".
CONNECTORS = _words("de da do das dos e of the and & for del di du von van der y")
ORG_ONLY_CONNECTORS = _words("e and & for")  # "NuvemSul Tecnologia e Dados S.A." but not "Eduardo e Adriana"

ORG_HEADS = _words("""
secretaria ministerio hospital associacao comite comissao nucleo diretoria departamento gerencia coordenacao
coordenadoria agencia instituto universidade fundacao empresa banco conselho tribunal prefeitura governo
camara sindicato clinica laboratorio faculdade grupo companhia cia ouvidoria superintendencia assessoria
procuradoria
controladoria servico setor equipe unidade centro escritorio cooperativa consorcio federacao confederacao
ministry department agency university institute foundation committee council board bank company association
corporation clinic office authority commission court team group center centre
""")
ORG_WORDS = _words("tecnologia servicos solucoes consultoria engenharia alimentacao sistemas participacoes")
ORG_SUFFIX = re.compile(r"\s*(?:S\.\s?A\.?|S/A|SA\b|Ltda\.?|LTDA\.?|Inc\.?|Corp\.?|Co\.|LLC|Ltd\.?|GmbH|PLC|"
                        r"EIRELI|EPP|ME\b)(?![\w])")
NORM_HEADS = _words("""
lei decreto resolucao portaria norma politica regulamento regimento procedimento protocolo instrucao codigo
estatuto constituicao medida emenda diretriz policy act law regulation directive standard guideline code
contrato aditivo convenio acordo contract agreement
""")
HONORIFICS = _words("dr dra sr sra srta enf prof profa eng mr mrs ms")
ROLE_WORDS = _words("""
nutricionista enfermeira enfermeiro diretor diretora gerente coordenador coordenadora secretaria secretario
presidente analista medico medica doutor doutora farmaceutico farmaceutica tecnico tecnica supervisor
supervisora chefe auditor auditora advogado advogada engenheiro engenheira contador contadora
""")
# Capitalised words that are not names on their own (section words, months, weekdays).
GENERIC = _words("""
anexo secao capitulo tabela figura nota item parte artigo clausula paragrafo inciso titulo objetivo objeto
janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro dezembro
segunda terca quarta quinta sexta sabado domingo
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday annex appendix section chapter table figure note
page pagina version versao
""")
GIVEN_NAMES = _words("""
adriana alessandra alexandre aline amanda ana andre andrea andreia angela antonio beatriz bruna bruno caio
camila carla carlos carolina cecilia celia cesar claudia claudio cristiane cristina daniel daniela davi
debora denise diego diogo douglas eduardo elaine elisa elizabete emerson erica fabiana fabio felipe fernanda
fernando flavia francisco gabriel gabriela giovana gilberto guilherme gustavo helena heloisa henrique
igor isabel isabela jessica joana joao jorge jose josefa julia juliana julio larissa laura leandro
leonardo leticia lucas lucia luciana luiz luis luisa marcelo marcia marcio marcos maria mariana mario
marta mateus matheus mauricio michele miguel monica natalia nelson otavio patricia paula paulo pedro
priscila rafael rafaela raquel regina renata renato ricardo roberta roberto rodrigo rogerio rosa rosana
samuel sandra sergio silvia simone sonia tatiana thiago tiago vanessa vera vinicius vitor viviane wagner
wellington william
james john robert michael david richard joseph thomas charles christopher daniel matthew anthony mark donald
steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob gary
mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy betty margaret sandra
ashley kimberly emily donna michelle carol amanda melissa deborah stephanie rebecca sharon laura cynthia
""")

# Codes: "CT-2024-0187", "POP-QUA-001", "MAN-SUP-EN-01", "AES-256", "SEV1", "AX4410"; a CNPJ.
CODE = re.compile(r"\b(?:(?=[A-Z0-9]*[A-Z])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-(?=[A-Z0-9-]*\d)[A-Z0-9]+"
                  r"|[A-Z]{2,}\d+[A-Z0-9]*|\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2})\b")
# Laws and regulations with a number: "Lei nº 13.709/2018", "RDC 216/2004", "Resolução CFM nº 1.821/2007".
LAW = re.compile(
    r"\b(?P<head>(?i:lei(?:\s+complementar)?|decreto(?:-lei)?|portaria|resolu[çc][ãa]o|instru[çc][ãa]o\s+"
    r"normativa|medida\s+provis[óo]ria|emenda\s+constitucional)|RDC|Law|Act)\s+(?:(?P<issuer>[A-Z]{2,10}"
    r"(?:/[A-Z]{2,10})?)\s+)?(?:(?i:n\.?\s?[º°o]\.?|no\.|n\.|número)\s*)?(?P<num>\d{1,3}(?:\.\d{3})+|\d+)"
    r"(?:\s*/\s*(?P<year>\d{4}|\d{2})\b|,?\s+de\s+\d{1,2}º?\s+de\s+[a-zç]+\s+de\s+(?P<year2>\d{4}))?")
# Technical standards: "ISO 27001", "ISO/IEC 27001:2022", "ABNT NBR 9050", "NR-32".
STANDARD = re.compile(r"\b(?P<body>ISO/IEC|ISO|IEC|ABNT\s+NBR|NBR|NR|IEEE|RFC)[\s-]?"
                      r"(?P<num>\d{1,5}(?:[-.]\d+)*)(?::(?P<year>\d{4}))?\b")
# Articles, optionally of a law: "Art. 7º", "art. 5º, inciso II, da Lei 13.709/2018", "Article 7 of the GDPR".
ARTICLE = re.compile(
    r"\b(?i:art(?:igo|icle)?s?)\.?\s*(?P<num>\d+)\s*(?:[º°ª]|o\b)?(?:\s*,?\s*(?:§\s*\d+\s*[º°]?|(?i:inciso)\s+"
    r"[IVXLC]+|(?i:par[áa]grafo\s+[úu]nico)))*(?:,?\s+(?:d[ao]s?|of\s+the)\s+(?P<law>(?i:lei)\s+(?:n\.?\s?[º°]?\s*)?"
    r"\d[\d.]*(?:/\d{2,4})?|[A-Z]{2,8}\b|(?i:constitui[çc][ãa]o)(?:\s+Federal)?))?")
# Contract clauses: "cláusula 7.2", "CLÁUSULA 1ª", "Clause 4".
CLAUSE = re.compile(r"\b(?i:cl[áa]usula|clause)\s+(?P<num>\d+(?:\.\d+)*)\s*(?:[ªº°]|a\b)?")

ROMAN = re.compile(r"^(?=[MDCLXVI])M{0,3}(?:C[MD]|D?C{0,3})(?:X[CL]|L?X{0,3})(?:I[XV]|V?I{0,3})$")
# Word tokens (letters first; hyphens and apostrophes inside), numbers, and single punctuation marks.
TOKEN = re.compile(r"(?P<word>[^\W\d_](?:[\w’'&-]*[\w])?)|(?P<num>\d+(?:[.,]\d+)*)|(?P<punct>[^\w\s])")
SENTENCE_END = frozenset(".!?:;|•—–->")

# Verb-like endings that break a noun phrase (Portuguese finite forms, gerunds, adverbs; English adverbs).
VERB_ENDINGS = ("ando", "endo", "indo", "ara", "era", "ira", "arao", "erao", "irao", "aram", "eram", "iram",
                "avam", "ava", "ariam", "eriam", "mente", "ly", "ou", "iu")
# Quantifiers and determiners that the stopword lists lack; they never start or end a noun phrase.
PHRASE_STOP = _words("""
every several many much another various certain per cerca mesma mesmo demais diversos diversas varios varias
algum alguma alguns algumas nenhum nenhuma certo certa cujo cuja cujos cujas respectivo respectiva
respectivos respectivas seguinte seguintes referido referida apos antes durante conforme mediante perante
desde sob contra exceto inclusive segundo alem dentro fora acima abaixo enquanto sempre ainda
um dois tres quatro cinco seis sete oito nove dez onze doze treze quatorze quinze vinte trinta quarenta
cinquenta sessenta setenta oitenta noventa cem cento duzentos trezentos quinhentos mil milhao milhoes reais
one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred thousand
million known called named born based located well best
""")
NOUN_EM = _words("ordem nuvem homem item bem armazem trem desordem origem margem")
AR_ADJECTIVES = _words("""
hospitalar familiar auxiliar particular similar regular celular militar escolar popular titular molecular
vascular muscular nuclear solar lugar par mar bar circular linear modular singular peculiar cardiovascular
ambulatorial pilar dolar milhar
""")
COMMON_VERBS = _words("""
deve devem pode podem tem possui possuem ha fica ficam exige exigem sera serao faz fazem inclui incluem
ocorre ocorrem segue seguem recebe recebem contem garante garantem define definem estabelece estabelecem
informou apresentou relatou aprovou pediu ratificou considera sends opens uploads runs prepares activates
informs explains must requires apply aplicar notificar manter utilizar realizar garantir
""")
