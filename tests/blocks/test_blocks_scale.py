"""A list of many address blocks: the guard, the admin list and the edge's delta read indexes, never the table.

SQLite's planner, once ANALYZE has run, weighs an index by its statistics: an
index holding a NULL for every address block looked like a scan's equal and
the device lookup became one. These plans are checked on such a list.
"""
import pytest
from sqlalchemy import text

from guardsvc.extensions import db
from guardsvc.storage import clock

def _plan(statement, params):
    compiled = statement.compile(db.engine)
    values = compiled.construct_params(params)
    rows = db.session.connection().exec_driver_sql(
        "EXPLAIN QUERY PLAN " + str(compiled), tuple(values[name] for name in compiled.positiontup)).all()
    return [row[-1] for row in rows]


@pytest.fixture()
def many_blocks(app):
    from guardsvc.blocks.models import Block

    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            pytest.skip("SQLite's planner (PostgreSQL's is measured by bench/million_blocks.py)")
        db.session.execute(db.insert(Block), [
            {"reference": f"BLK-00{number:06X}", "network": f"11.0.{number // 256}.{number % 256}/32",
             "created_at": clock.utcnow()} for number in range(3000)])
        db.session.commit()
        db.session.execute(text("ANALYZE"))
        db.session.commit()
    yield
    with app.app_context():
        db.session.execute(text("DROP TABLE IF EXISTS sqlite_stat1"))
        db.session.commit()


def test_the_guard_finds_a_client_by_index_among_many_address_blocks(app, many_blocks):
    from guardsvc.blocks.networks import candidate_networks
    from guardsvc.blocks.service import _STATEMENTS

    with app.app_context():
        names, matching, enforced = _STATEMENTS[33]
        params = {**dict(zip(names, candidate_networks("198.18.7.7"))), "device_id": "perangkat-1",
                  "local_ip": None, "any_local_ip": False, "now": clock.utcnow()}
        for statement in (matching.statement, enforced.statement):
            plan = _plan(statement, params)
            assert not any(step.startswith("SCAN blocks") for step in plan), plan
            assert any("ix_blocks_active_device_id" in step for step in plan), plan


def test_the_admin_list_walks_its_index_newest_first(app, many_blocks):
    from guardsvc.blocks.models import Block
    from guardsvc.blocks.service import active_condition

    with app.app_context():
        query = (db.select(Block).where(active_condition(clock.utcnow()))
                 .order_by(Block.created_at.desc(), Block.id.desc()).limit(20))
        plan = _plan(query, {})
        assert not any("TEMP B-TREE" in step for step in plan), plan


def test_the_edge_delta_reads_the_change_log_by_its_key(app, many_blocks):
    from sqlalchemy import event

    from guardsvc.blocks.edge import edge_delta, snapshot_cursor

    with app.app_context():
        seen = []
        engine = db.engine
        cursor = snapshot_cursor()

        def remember(conn, cursor, statement, parameters, context, executemany):
            seen.append((statement, parameters))
        event.listen(engine, "before_cursor_execute", remember)
        try:
            assert edge_delta(cursor - 5)[1].count("\n") == 5
        finally:
            event.remove(engine, "before_cursor_execute", remember)
        connection = db.session.connection()
        for statement, parameters in seen:
            plan = [row[-1] for row in connection.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)]
            assert not any(step.startswith(("SCAN edge_changes", "SCAN blocks")) for step in plan), (statement, plan)
