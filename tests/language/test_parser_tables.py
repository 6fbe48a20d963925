"""The grammar's parse tables: built once, kept in the per-user cache directory under a
name that says what they were built from, read back by later parsers; a damaged or
unwritable cache changes the time, never the parse."""
import lark
import pytest

from circuitsim.errors import NetlistError
from circuitsim.netlist import larkroute, parser, parser_tables

OPTIONS = dict(parser="lalr", lexer="contextual", start=["netlist", "expression"],
               propagate_positions=True, maybe_placeholders=False)
SOURCE = """
.title tables
.param a=2
R R1 n1 0 R={2*a}
R R2 n1 0 R={a >= 1}
V V1 n1 0 V=sin(0, 1, 50)
.subckt half in out params: k=1
R Rk in out R={k}
.ends half
.tran 1m
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty per-user cache directory (its circuitsim/ folder, not yet made)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    return tmp_path / "circuitsim"


@pytest.fixture
def fresh_parsers():
    """parser.py's parsers made again on first use (and after the test)."""
    for made in (larkroute.tree_parser, larkroute.fast_parser):
        made.cache_clear()
    yield
    for made in (larkroute.tree_parser, larkroute.fast_parser):
        made.cache_clear()


def _tree(lark_parser):
    return lark_parser.parse(SOURCE, start="netlist")


def _built_tree():
    return _tree(lark.Lark(larkroute.grammar(), **OPTIONS))


def _read_back(monkeypatch, options=OPTIONS):
    """lark_parser(), which must read its tables, not build them."""
    def no_build(*args, **kwargs):
        raise AssertionError("the tables were built again")
    with monkeypatch.context() as patch:
        patch.setattr(lark.lark, "load_grammar", no_build)
        return parser_tables.lark_parser(larkroute.grammar(), **options)


def test_tables_are_written_once_then_read(cache, monkeypatch):
    expected = _built_tree()
    built = parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)
    (path,) = cache.iterdir()              # one whole file, no temporary left behind
    assert path.name.endswith(".lark-tables")
    assert _tree(_read_back(monkeypatch)) == _tree(built) == expected
    assert list(cache.iterdir()) == [path]


@pytest.mark.parametrize("damage", ["empty", "truncated", "foreign"])
def test_a_damaged_file_is_built_again(cache, monkeypatch, damage):
    parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)
    (path,) = cache.iterdir()
    whole = path.read_bytes()
    path.write_bytes({"empty": b"", "truncated": whole[:len(whole) // 2],
                      "foreign": b"not tables\n" + whole[len(whole) // 2:]}[damage])
    assert _tree(parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)) == _built_tree()
    assert _tree(_read_back(monkeypatch)) == _built_tree()     # and written again whole


def test_a_cache_that_cannot_be_made_builds_in_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))   # no directory can be made in it
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    assert _tree(parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)) == _built_tree()
    assert blocker.read_text() == ""


def test_the_name_says_what_the_tables_are_built_from(cache, monkeypatch):
    grammar = larkroute.grammar()
    key = parser_tables.tables_key(grammar, OPTIONS)
    assert parser_tables.tables_path(key).parent == cache
    assert parser_tables.tables_key(grammar + "\n", OPTIONS) != key
    assert parser_tables.tables_key(grammar, {**OPTIONS, "start": "netlist"}) != key
    reordered = dict(reversed(list(OPTIONS.items())))
    assert parser_tables.tables_key(grammar, reordered) == key
    # the transformer is bound when the tables are loaded: not part of them
    assert parser_tables.tables_key(grammar, {**OPTIONS, "transformer": object()}) == key
    monkeypatch.setattr(lark, "__version__", "0.0.0")
    assert parser_tables.tables_key(grammar, OPTIONS) != key


def test_a_file_of_other_tables_is_not_read(cache, monkeypatch):
    """A file whose first line is not its hash (copied or renamed) is built again."""
    parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)
    (path,) = cache.iterdir()
    other = {**OPTIONS, "start": "netlist"}
    parser_tables.lark_parser(larkroute.grammar(), **other)
    (other_path,) = set(cache.iterdir()) - {path}
    path.write_bytes(other_path.read_bytes())
    assert _tree(parser_tables.lark_parser(larkroute.grammar(), **OPTIONS)) == _built_tree()
    assert _tree(_read_back(monkeypatch)) == _built_tree()


def test_parse_and_its_errors_are_the_same_from_read_tables(cache, fresh_parsers):
    """parse() of a netlist (the fast route; R2's comparison goes to Lark's fast parser)
    and of a bad one (the tree route, which
    words the error): the same when the tables are built and when they are read."""
    seen = []
    for _ in range(2):                     # built and written, then read
        for made in (larkroute.tree_parser, larkroute.fast_parser):
            made.cache_clear()
        net = parser.parse(SOURCE, "tables.cir")
        with pytest.raises(NetlistError) as err:
            parser.parse("R R1 a 0 R={1+}\n", "bad.cir")
        seen.append((repr(net), str(err.value)))
    assert len(list(cache.iterdir())) == 2     # one file for each of the two parsers
    assert seen[0] == seen[1]
