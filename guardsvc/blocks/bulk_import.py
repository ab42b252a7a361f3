"""Importing a blocklist: one address or CIDR range a line, a million lines in well under a minute.

Lists come as FireHOL ``.netset`` files, Spamhaus DROP (``1.2.3.0/24 ; SBL123``)
and CrowdSec exports: ``#`` and ``;`` start a comment (a whole line or the end
of one), blank lines are skipped. Every line is read and checked before
anything is written, so a file with a bad line (not an address, too wide, on a
never-blocked network: the one rule of ``bounds``) imports
nothing unless the bad lines are to be skipped.

A list whose new entries would take what all active blocks cover of the public
IPv4 space past ``GUARDSVC_MAX_COVERAGE`` (``coverage``) imports nothing either,
``--skip-bad`` or not, and names the first line that passes the cap: 255 ``/8``
lines are not 255 acceptable ranges.

The rows go in by chunks, each one statement (COPY on PostgreSQL, executemany
elsewhere), in the command's one transaction: all of the list or none of it.
The blocks carry the import's start as ``created_at``; an approval's or a
self-release's allow entry committed while the import ran would outrank them as
if they had existed before it, so the blocks such a client is under are stamped
with the moment the import finishes (``restamp_for_entries``).
What a single block creation does once per block (the audit entry, the
webhook event, the metrics) happens once per import here, with the counts: a
list of a million addresses is one ``blocks.imported`` event, not a million
``block.created``.
"""
import binascii
import os
from dataclasses import dataclass, field

from guardsvc import messages
from guardsvc.audit.service import record_event
from sqlalchemy import select, update

from guardsvc.blocks import coverage
from guardsvc.blocks.models import MANUAL, AllowEntry, Block
from guardsvc.blocks.networks import candidate_networks, fast_network, parse_network
from guardsvc.blocks.bounds import block_bounds, refusal_text
from guardsvc.blocks.service import checked_expiry
from guardsvc.extensions import db
from guardsvc.metrics import counters as metrics
from guardsvc.storage import clock, codes
from guardsvc.stored_texts import for_storage
from guardsvc.webhooks.service import queue_event

# Bad lines kept with their text for the report; the rest are only counted.
REPORTED_BAD_LINES = 20
# Rows per statement: large enough that a statement's own cost vanishes, small enough that
# each stays far below the statement timeout and an IN (...) probe stays one index walk.
CHUNK_ROWS = 5000
# From this many entries on, every existing reference is read once instead of probed chunk by chunk.
READ_EVERY_REFERENCE_FROM = 50_000
# Writes of one chunk before a reference taken meanwhile by another writer is an error.
REFERENCE_ATTEMPTS = 3
IMPORTED_EVENT = "blocks.imported"
# ``ImportReport.networks`` keeps, for each network, its first line number and its public addresses in one int.
LINE_SHIFT = 33
PUBLIC_MASK = (1 << LINE_SHIFT) - 1
COLUMNS = ("reference", "network", "reason", "created_by_id", "created_at", "expires_at", "device_issued",
           "self_release", "imported_from")
# blocks.imported_from: the list's name as the desk shows a block's source.
SOURCE_NAME_LENGTH = 100


@dataclass
class BadLine:
    number: int
    text: str
    why: str


@dataclass
class ImportReport:
    """What an import found and did: lines read, blocks added, entries skipped and why."""

    source: str
    lines: int = 0
    # canonical text, each once -> its first line number << LINE_SHIFT | its public IPv4 addresses
    networks: dict = field(default_factory=dict, repr=False)
    duplicates: int = 0
    existing: int = 0
    added: int = 0
    bad: int = 0
    refused: int = 0  # of ``bad``: too wide or on a never-blocked network
    bad_lines: list = field(default_factory=list)

    @property
    def skipped(self):
        return self.duplicates + self.existing + self.bad

    def counts(self):
        return {"added": self.added, "existing": self.existing, "duplicates": self.duplicates, "bad_lines": self.bad,
                "lines": self.lines}


class BadBlocklist(Exception):
    """The list has bad lines and they were not to be skipped: nothing was imported."""

    def __init__(self, report):
        super().__init__(f"{report.bad} bad line(s)")
        self.report = report

    @property
    def summary(self):
        return messages.BLOCKLIST_REFUSED.format(count=self.report.bad)


class CoverageRefused(BadBlocklist):
    """The list's new entries would take what all blocks cover past ``GUARDSVC_MAX_COVERAGE``: nothing imported.

    ``report.bad_lines`` holds the first line that passes the cap.
    """

    def __init__(self, report, number):
        super().__init__(report)
        self.number = number

    @property
    def summary(self):
        return messages.BLOCKLIST_COVERAGE_REFUSED.format(cap=coverage.cap_text(), number=self.number)


def entry_text(line):
    """The address or range on a list line, comments and blanks removed ('' when there is none)."""
    if "#" in line:
        line = line[:line.index("#")]
    if ";" in line:
        line = line[:line.index(";")]
    return line.strip()


def read_blocklist(lines, source):
    """Check every line of a list; an ImportReport with its unique networks (canonical text) and bad lines."""
    report = ImportReport(source=source)
    bounds, seen = block_bounds(), report.networks
    number = 0
    for number, line in enumerate(lines, 1):
        text = entry_text(line)
        if not text:
            continue
        try:
            canonical, version, first, prefixlen = fast_network(text)
        except ValueError:
            _bad(report, number, text, messages.FIELD_BAD_IP_OR_CIDR)
            continue
        refused = bounds.refusal_of(version, first, prefixlen)
        if refused is not None:
            report.refused += 1
            _bad(report, number, text, lambda: refusal_text(parse_network(canonical), refused))
            continue
        if canonical in seen:
            report.duplicates += 1
        else:
            seen[canonical] = number << LINE_SHIFT | coverage.public_addresses(version, first, prefixlen)
    report.lines = number
    return report


def _bad(report, number, text, why):
    report.bad += 1
    if len(report.bad_lines) < REPORTED_BAD_LINES:
        report.bad_lines.append(BadLine(number, text[:100], str(why() if callable(why) else why)))


def import_blocklist(lines, *, source, reason=None, minutes=None, self_release=False, skip_bad=False,
                     actor=None):
    """Block every address and range of a list (contract section 15); an ImportReport.

    Entries already under an active block on the same network (not narrowed
    by a local IP) and repeats within the list are skipped. Raises
    BadBlocklist, having written nothing, when a line is bad and ``skip_bad``
    is false. One audit entry and one ``blocks.imported`` webhook event say
    what the import did.
    """
    now = clock.utcnow()
    expires_at = checked_expiry(now, minutes, None)
    report = read_blocklist(lines, source)
    if report.refused:
        metrics.BLOCKS_REFUSED.labels(source="import").inc(report.refused)
    if report.bad and not skip_bad:
        raise BadBlocklist(report)
    reason = reason or for_storage(messages.BLOCKLIST_IMPORT_REASON, source=source)
    entries, report.networks = report.networks, {}
    writer = _RowWriter(db.session.connection(), (reason, actor.id if actor else None, now, expires_at, False,
                                                  self_release, source[:SOURCE_NAME_LENGTH]),
                        read_every_reference=len(entries) >= READ_EVERY_REFERENCE_FROM)
    # In index order: each chunk's rows land next to each other in the network index.
    networks = sorted(entries)
    fresh_chunks = []
    for start in range(0, len(networks), CHUNK_ROWS):
        chunk = networks[start:start + CHUNK_ROWS]
        fresh = writer.not_blocked(chunk, now)
        report.existing += len(chunk) - len(fresh)
        fresh_chunks.append(fresh)
    del networks
    adds = sum(entries[network] & PUBLIC_MASK for fresh in fresh_chunks for network in fresh)
    if adds:  # refused before anything is written; checked again below, after the gate
        _check_coverage(report, entries, fresh_chunks, adds, coverage.covered())
    for fresh in fresh_chunks:
        if fresh:
            writer.add(fresh)
            report.added += len(fresh)
    # From here to the commit, no other writer of blocks or yielding entries. A first pass ever counted the
    # blocks, these included.
    counted = coverage.pass_block_gate()
    if adds:
        now_covered, fits = coverage.room_for(0 if counted else adds)
        if not fits:
            _check_coverage(report, entries, fresh_chunks, adds, now_covered - (adds if counted else 0))
        if not counted:
            coverage.add(expires_at, adds)
    restamp_for_entries(now, fresh_chunks)
    metrics.BLOCKS_CREATED.inc(report.added)
    details = {**report.counts(), "reason": reason, "expires_at": clock.isoformat(expires_at),
               **({"self_release": True} if self_release else {})}
    record_event(IMPORTED_EVENT, f"blocklist:{source}"[:64], actor=actor, details=details)
    queue_event(IMPORTED_EVENT, lambda: {"source": source, **report.counts(), "created_at": clock.isoformat(now),
                                         "expires_at": clock.isoformat(expires_at), "self_release": self_release})
    return report


def _check_coverage(report, entries, fresh_chunks, adds, now_covered):
    """Raise CoverageRefused, naming the first line (in the list's order) that takes what is covered past the cap."""
    cap = coverage.cap_addresses()
    if cap is None or now_covered + adds <= cap:
        return
    counted = sorted((entries[network] >> LINE_SHIFT, network, entries[network] & PUBLIC_MASK)
                     for fresh in fresh_chunks for network in fresh if entries[network] & PUBLIC_MASK)
    total = now_covered
    for index, (number, network, addresses) in enumerate(counted):
        total += addresses
        if total > cap:
            metrics.BLOCKS_REFUSED.labels(source="import").inc(len(counted) - index)
            report.bad_lines = [BadLine(number, network, str(coverage.refusal_text(network, total - addresses,
                                                                                   addresses)))]
            raise CoverageRefused(report, number)


def restamp_for_entries(started, fresh_chunks):
    """Stamp with the commit's moment the new blocks on a client that got a yielding allow entry meanwhile.

    An approval's or a self-release's entry outranks only the blocks that existed when it was made; this
    import's blocks carry its start (``started``) but exist from its commit on. Entries made since the start
    (committed: the caller passed the blocks' gate, which their makers pass too) are few; the blocks of this
    import that cover their address get the present moment, so those entries yield to them.
    """
    made = db.session.scalars(select(AllowEntry.network).where(
        AllowEntry.made_by != MANUAL, AllowEntry.created_at >= started, AllowEntry.removed_at.is_(None),
        AllowEntry.network.is_not(None))).all()
    if not made:
        return 0
    written = {network for fresh in fresh_chunks for network in fresh}
    covering = {candidate for network in made for candidate in candidate_networks(network.rsplit("/", 1)[0])
                if candidate in written}
    if not covering:
        return 0
    return db.session.execute(update(Block).where(
        Block.network.in_(sorted(covering)), Block.created_at == started, Block.lifted_at.is_(None))
        .values(created_at=clock.utcnow()).execution_options(synchronize_session=False)).rowcount


class _RowWriter:
    """Block rows written through the driver of the session's own connection (so in its transaction).

    A million rows through SQLAlchemy's per-row parameter handling would cost
    more than writing them: COPY on PostgreSQL, ``executemany`` on SQLite, and
    the values every row shares converted once with the columns' own types.
    """

    def __init__(self, connection, fixed, read_every_reference=False):
        self.driver = connection.connection.driver_connection
        self.dialect = connection.dialect
        self.postgresql = self.dialect.name == "postgresql"
        # Every reference blocks have, read when the first is needed if ``read_every_reference``.
        self.taken, self.read_every_reference = None, read_every_reference
        if self.postgresql:
            # What every row shares, in COPY's text format once: each row is then two fields and this.
            self.fixed = "\t".join(map(_copy_text, fixed))
        else:
            self.fixed = tuple(map(self._bound, COLUMNS[2:], fixed))

    def _bound(self, column, value):
        """``value`` as SQLAlchemy would hand it to the driver for ``column`` of blocks."""
        process = Block.__table__.c[column].type.dialect_impl(self.dialect).bind_processor(self.dialect)
        return value if process is None or value is None else process(value)

    def _select(self, sql, values, *extra):
        """One column of the rows that ``sql`` (``{values}`` standing for the list) selects."""
        if self.postgresql:
            # One text parameter the server splits: a list parameter of 5,000 texts costs more to send.
            rows = self.driver.execute(sql.format(values="= ANY(string_to_array(%s, ' '))").replace("?", "%s"),
                                       (" ".join(values), *extra))
        else:
            rows = self.driver.execute(sql.format(values="IN (" + ",".join("?" * len(values)) + ")"), (*values, *extra))
        return {row[0] for row in rows}

    def not_blocked(self, networks, now):
        """Those of ``networks`` no active block covers exactly (one probe of the active-network index)."""
        if not self.postgresql:
            now = self._bound("expires_at", now)
        blocked = self._select(
            "SELECT network FROM blocks WHERE network {values} AND lifted_at IS NULL AND local_ip IS NULL "
            "AND (expires_at IS NULL OR expires_at > ?)", networks, now)
        return [network for network in networks if network not in blocked] if blocked else networks

    def unused_references(self, count):
        """``count`` distinct block references that no block has (those of earlier chunks included).

        A large import reads every reference once (a million in about a second)
        and draws new ones around them; a small one asks about its own (one
        probe of the reference index per chunk), whatever the size of the table.
        """
        if self.taken is None and self.read_every_reference:
            self.taken = {row[0] for row in self.driver.execute("SELECT reference FROM blocks")}
        if self.taken is not None:
            references = _new_references(count, self.taken)
            self.taken.update(references)
            return references
        references = _new_references(count, set())
        while True:
            taken = self._select("SELECT reference FROM blocks WHERE reference {values}", references)
            if not taken:
                return references
            kept = [reference for reference in references if reference not in taken]
            references = kept + _new_references(len(taken), set(kept) | taken)

    def add(self, networks):
        """Block these networks, each with a reference of its own.

        A block made elsewhere between drawing the references and writing
        them may have taken one: that chunk alone is undone (a savepoint) and
        written again with others.
        """
        for attempt in range(REFERENCE_ATTEMPTS):
            try:
                with db.session.begin_nested():
                    db.session.connection()  # the SAVEPOINT itself: the session emits it when asked for the connection
                    return self.insert(zip(self.unused_references(len(networks)), networks))
            except self.dialect.loaded_dbapi.IntegrityError:
                if attempt == REFERENCE_ATTEMPTS - 1:
                    raise
                self.taken = None  # read again: someone else wrote

    def insert(self, targets):
        """One statement for these ``(reference, network)`` pairs."""
        if self.postgresql:
            with self.driver.cursor().copy(f"COPY blocks ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                copy.write("".join(f"{reference}\t{network}\t{self.fixed}\n" for reference, network in targets))
        else:
            self.driver.executemany(f"INSERT INTO blocks ({', '.join(COLUMNS)}) VALUES "
                                    f"({', '.join('?' * len(COLUMNS))})",
                                    [(reference, network, *self.fixed) for reference, network in targets])


def _copy_text(value):
    """``value`` as a field of COPY's text format (``\\N`` for NULL, backslash escapes in text)."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    text = value.isoformat(sep=" ") if hasattr(value, "isoformat") else str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _new_references(count, avoid):
    """``count`` distinct ``BLK-`` codes, none of ``avoid``, from CSPRNG reads of many codes at once."""
    prefix, found = codes.REFERENCE_PREFIX + "-", {}
    while len(found) < count:
        wanted = count - len(found)
        digits = binascii.hexlify(os.urandom(4 * wanted)).decode("ascii").upper()
        for index in range(0, 8 * wanted, 8):
            reference = prefix + digits[index:index + 8]
            if reference not in avoid:
                found[reference] = None
    return sorted(found)
