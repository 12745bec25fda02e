"""Portuguese and English stopwords, accent-folded and lower-case, for :mod:`models.analysis`.

The lists follow Snowball's (and NLTK's) function-word lists with a few additions. Negations are left out on
purpose: "não contém" and "contém" must not look the same to BM25. They live in ``NEGATIONS``, per language:
Portuguese "no" is "em" + "o" ("no leito"), a function word, while English "no" negates.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


NEGATIONS_OF: dict[str, frozenset[str]] = {"pt": frozenset({"nao", "sem", "nunca", "nem"}),
                                           "en": frozenset({"not", "no", "nor", "never"})}
NEGATIONS: frozenset[str] = NEGATIONS_OF["pt"] | NEGATIONS_OF["en"]

PORTUGUESE: frozenset[str] = _words("""
a ao aos aquela aquelas aquele aqueles aquilo as ate com como da das de dela delas dele deles depois do dos e
ela elas ele eles em entre era eram eramos essa essas esse esses esta estas este estes estamos estao estar
estava estavam estavamos esteja estejam estejamos esteve estive estivemos estiver estivera estiveram
estiveramos estiverem estivermos estivesse estivessem estivessemos estou eu foi fomos for fora foram foramos
forem formos fosse fossem fossemos fui ha haja hajam hajamos hao havemos havia hei houve houvemos houver
houvera houveram houveramos houverao houverei houverem houveremos houveria houveriam houveriamos houvermos
houvesse houvessem houvessemos isso isto ja lhe lhes mais mas me mesmo meu meus minha minhas muito na nas
no nos nossa nossas nosso nossos num numa numas nuns o os ou para pela pelas pelo pelos por qual quando que quem
sao se seja sejam sejamos ser sera serao seremos serei seria seriam seriamos seu seus so somos sou sua suas
tambem te tem temos tenha tenham tenhamos tenho ter tera terao teremos terei teria teriam teriamos teu teus
teve tinha tinham tinhamos tive tivemos tiver tivera tiveram tiveramos tiverem tivermos tivesse tivessem
tivessemos tu tua tuas um uma umas uns voce voces vos
ainda apenas assim cada onde pois porque porem qualquer quais sobre tal tais toda todas todo todos outra
outras outro outros la aqui desse desta deste dessa nesse nessa neste nesta
""") - NEGATIONS_OF["pt"]

ENGLISH: frozenset[str] = _words("""
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself now of off
on once only or other our ours ourselves out over own same shall she should so some such than that the their
theirs them themselves then there these they this those through to too under until up upon very was we were
what when where which while who whom why will with would you your yours yourself yourselves
also may might must via within whether yet however thus hence therefore either neither
s t d ll m o re ve y ain aren couldn didn doesn don hadn hasn haven isn ma mightn mustn needn shan shouldn
wasn weren wouldn
""") - NEGATIONS_OF["en"]

# Words of two letters or more that point to one language only, for language detection ("e" and "i" are
# too often a variable, a list item or a Roman numeral).
PORTUGUESE_MARKERS: frozenset[str] = frozenset(
    w for w in (PORTUGUESE | NEGATIONS_OF["pt"]) - ENGLISH if len(w) > 1)
ENGLISH_MARKERS: frozenset[str] = frozenset(
    w for w in (ENGLISH | NEGATIONS_OF["en"]) - PORTUGUESE - {"no"} if len(w) > 1)
