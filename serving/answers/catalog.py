"""Governance metadata from the catalog alone: document type, department, owners, review dates.

The snapshot's ``documents`` and ``extracted`` Parquet files (or, when dbt has left one, the ``catalog`` table of
the snapshot's ``serving.duckdb``, attached read-only) are copied once into an in-memory DuckDB table: a few
hundred bytes per document, no document text. Every query filters on the caller's groups in SQL.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import duckdb

from lakehouse.text import fold as _fold
from serving.answers.errors import InvalidRequest
from serving.answers.types import CatalogItem, DocumentMeta
from serving.search.index import PUBLIC

log = logging.getLogger(__name__)

COLUMNS = ("document_id", "title", "path", "doc_type", "access_groups", "version", "issue_date",
           "last_review_date", "next_review_date", "responsible", "approver", "department", "metadata_source",
           "summary", "tags", "entities")
OPTIONAL = ("metadata_source", "summary", "tags", "entities")  # later additions: a mart built before them serves
DUE_SOON_DAYS = 30
_FROM_PARQUET = """
create table catalog as
select d.document_id, coalesce(nullif(e.title, ''), regexp_extract(d.path, '([^/]+?)(\\.[^./]*)?$', 1)) as title,
       d.path, d.doc_type, d.access_groups,
       e.version, e.issue_date, e.last_review_date, e.next_review_date, e.responsible, e.approver, e.department,
       e.metadata_source, {described}
from read_parquet(?) d left join read_parquet(?) e using (content_hash) {join}
where d.is_current and d.status = 'active'
"""
_DESCRIBED = ("x.summary, coalesce(x.tags, []::varchar[]) as tags, coalesce(x.entities, []::varchar[]) as entities",
              "left join read_parquet(?) x on x.document_id = d.document_id")
_UNDESCRIBED = "null::varchar as summary, []::varchar[] as tags, []::varchar[] as entities"


@dataclass(frozen=True)
class CatalogQuery:
    """Filters of a catalog query; text filters match accent- and case-insensitively."""

    doc_types: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    responsible: str | None = None
    approver: str | None = None
    title: str | None = None
    document_id: str | None = None  # one document (a card: the question named it; ``serving.answers.cards``)
    due_within_days: int | None = None
    due_by: str | None = None  # "week", "month" or "year": review due from as_of to the end of that period
    due_year: int | None = None  # review due within that calendar year ("quais políticas vencem em 2027?")
    outdated: bool | None = None
    as_of: date | None = None
    limit: int = 100
    offset: int = 0
    show: tuple[str, ...] = field(default=())  # columns the question asked about (for the answer text)

    def describe(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if v not in (None, (), 0) and k not in ("limit", "show")}
        return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


MIN_YEAR, MAX_YEAR = 1900, 2199  # the years a due_year may name


def period_end(as_of: date, period: str) -> date:
    """The last day of the week (Sunday), month or year ``as_of`` falls in."""
    if period == "week":
        return min(date.max - timedelta(days=6 - as_of.weekday()), as_of) + timedelta(days=6 - as_of.weekday())
    if period == "month":
        if (as_of.year, as_of.month) == (9999, 12):
            return date.max
        later = as_of.replace(day=28) + timedelta(days=4)  # a day of the next month
        return later - timedelta(days=later.day)
    if period == "year":
        return date(as_of.year, 12, 31)
    raise InvalidRequest(f"due_by must be week, month or year, not {period!r}", "due_by")


def review_status(next_review: date | None, as_of: date, due_days: int = DUE_SOON_DAYS) -> str:
    if next_review is None:
        return "unknown"
    if next_review < as_of:
        return "overdue"
    return "due_soon" if next_review <= as_of + timedelta(days=due_days) else "ok"


class Catalog:
    """One snapshot's catalog; thread-safe (one DuckDB cursor per query)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, source: str) -> None:
        self._con = con
        self._lock = threading.Lock()
        self.source = source
        rows = con.execute(f"select {', '.join(COLUMNS)} from catalog").fetchall()
        self.rows = {r[0]: dict(zip(COLUMNS, r, strict=True)) for r in rows}

    @classmethod
    def open(cls, tables: Path, table: str = "catalog") -> Catalog:
        """From ``tables/../serving.duckdb`` when it holds a usable ``table``, else from the Parquet files."""
        con = duckdb.connect(":memory:")
        dbt_file = tables.parent / "serving.duckdb"
        if dbt_file.exists() and _from_dbt(con, dbt_file, table):
            return cls(con, f"dbt:{dbt_file.name}:{table}")
        for name in ("documents", "extracted"):
            if not (tables / f"{name}.parquet").exists():
                raise FileNotFoundError(f"{tables / f'{name}.parquet'}: missing; the catalog needs it")
        files = [str(tables / "documents.parquet"), str(tables / "extracted.parquet")]
        if (tables / "descriptions.parquet").exists():  # snapshots from before the describe stage have none
            sql = _FROM_PARQUET.format(described=_DESCRIBED[0], join=_DESCRIBED[1])
            files.append(str(tables / "descriptions.parquet"))
        else:
            sql = _FROM_PARQUET.format(described=_UNDESCRIBED, join="")
        con.execute(sql, files)
        return cls(con, "parquet")

    def meta(self, document_id: str | None) -> DocumentMeta | None:
        row = self.rows.get(document_id or "")
        if row is None:
            return None
        return DocumentMeta(version=row["version"], issue_date=row["issue_date"],
                            last_review_date=row["last_review_date"], next_review_date=row["next_review_date"],
                            responsible=row["responsible"], approver=row["approver"], department=row["department"])

    def values(self, column: str) -> list[str]:
        """Distinct non-empty values of a text column (for matching names in questions)."""
        if column not in ("department", "responsible", "approver", "doc_type"):
            raise InvalidRequest(f"no distinct values for column {column!r}", column)
        return sorted({r[column] for r in self.rows.values() if r[column]})

    def query(self, q: CatalogQuery, groups: frozenset[str]) -> tuple[list[CatalogItem], int]:
        """Documents the caller may read that match ``q``, by next review date then title; and their count."""
        as_of = q.as_of or date.today()
        where = ["list_has_any(access_groups, ?::varchar[])"]
        params: list = [sorted(groups | {PUBLIC})]
        if q.doc_types:
            where.append("doc_type in (select unnest(?::varchar[]))")
            params.append(list(q.doc_types))
        if q.departments:
            where.append("(" + " or ".join(["strip_accents(lower(department)) like ?"] * len(q.departments)) + ")")
            params += [f"%{_fold(d)}%" for d in q.departments]
        for column, value in (("responsible", q.responsible), ("approver", q.approver), ("title", q.title)):
            if value:
                where.append(f"strip_accents(lower({column})) like ?")
                params.append(f"%{_fold(value)}%")
        if q.document_id is not None:
            where.append("document_id = ?")
            params.append(q.document_id)
        if q.due_within_days is not None:
            where.append("next_review_date between ? and ?")
            try:
                until = as_of + timedelta(days=q.due_within_days)
            except OverflowError:  # as_of near 9999-12-31: every later date is "within"
                until = date.max
            params += [as_of, until]
        if q.due_by is not None:
            where.append("next_review_date between ? and ?")
            params += [as_of, period_end(as_of, q.due_by)]
        if q.due_year is not None:
            if not MIN_YEAR <= q.due_year <= MAX_YEAR:
                raise InvalidRequest(f"due_year must be between {MIN_YEAR} and {MAX_YEAR}, not {q.due_year}",
                                     "due_year")
            where.append("next_review_date between ? and ?")
            params += [date(q.due_year, 1, 1), date(q.due_year, 12, 31)]
        if q.outdated is not None:
            where.append("next_review_date < ?" if q.outdated
                         else "(next_review_date >= ? or next_review_date is null)")
            params.append(as_of)
        sql = f"from catalog where {' and '.join(where)}"
        with self._lock:
            cursor = self._con.cursor()
        try:
            total = cursor.execute(f"select count(*) {sql}", params).fetchone()[0]
            rows = cursor.execute(f"select {', '.join(COLUMNS)} {sql} order by next_review_date nulls last, title, "
                                  f"document_id limit ? offset ?", [*params, q.limit, q.offset]).fetchall()
        finally:
            cursor.close()
        return [_item(dict(zip(COLUMNS, r, strict=True)), as_of) for r in rows], int(total)


def _item(row: dict, as_of: date) -> CatalogItem:
    nxt = row["next_review_date"]
    return CatalogItem(document_id=row["document_id"], title=row["title"], path=row["path"],
                       doc_type=row["doc_type"], version=row["version"], issue_date=row["issue_date"],
                       last_review_date=row["last_review_date"], next_review_date=nxt,
                       responsible=row["responsible"], approver=row["approver"], department=row["department"],
                       review_status=review_status(nxt, as_of),
                       days_to_review=(nxt - as_of).days if nxt else None,
                       metadata_source=row["metadata_source"], summary=row["summary"], tags=list(row["tags"] or []),
                       entities=list(row["entities"] or []))




def _from_dbt(con: duckdb.DuckDBPyConnection, path: Path, table: str) -> bool:
    """Copy dbt's catalog table when it has every column we serve; False (Parquet fallback) otherwise."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", table):
        raise InvalidRequest(f"catalog table name {table!r} is not a plain identifier", "api_catalog_table")
    try:
        quoted = str(path).replace("'", "''")
        con.execute(f"attach '{quoted}' as serving (read_only)")
        found = {r[0] for r in con.execute(
            "select column_name from information_schema.columns where table_catalog = 'serving' "
            "and table_name = ?", [table]).fetchall()}
        if not set(COLUMNS) - set(OPTIONAL) <= found:
            log.info("%s: table %r lacks catalog columns; reading the Parquet files instead", path, table)
            con.execute("detach serving")
            return False
        active = " where status = 'active'" if "status" in found else ""  # dbt's catalog lists quarantined ones
        picked = ", ".join(c if c in found else f"null as {c}" for c in COLUMNS)  # a mart from before OPTIONAL
        con.execute(f"create table catalog as select {picked} from serving.main.{table}{active}")
        con.execute("detach serving")
        return True
    except duckdb.Error as exc:
        log.warning("%s: cannot use the dbt catalog (%s); reading the Parquet files instead", path, exc)
        return False
