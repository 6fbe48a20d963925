"""XML read for the bridges: bounded, without entities, every element with its position.

The standard library's parser (expat, the one under ``xml.etree.ElementTree``) builds an
ElementTree through ``ElementTree.TreeBuilder``; the start of each element is kept as a
``Loc`` (file, line, column), so that an error in the model names the line of the
element it is about. What a hostile file could use against the reader is refused before
it costs anything: a document larger than MAX_BYTES, more than MAX_ELEMENTS elements, and
any document type declaration (``<!DOCTYPE``, hence ``<!ENTITY``: no entity is ever
expanded, internal or external, so "billion laughs" and external reads cannot happen).
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pyexpat import errors as expat_errors
from xml.parsers import expat

from ..errors import Loc, NetlistError

# A robot description of a few hundred links is well under 1 MB (meshes are separate
# files); 16 MB leaves room for generated files and keeps a hostile one cheap to refuse.
MAX_BYTES = 16 * 2**20
# Elements of one document: a real robot has thousands; each costs about 0.5 kB of memory.
MAX_ELEMENTS = 500_000


class XmlDocument:
    """A parsed XML document: ``root`` (an ElementTree Element) and ``loc(element)``,
    the file, line and column where the element's start tag begins."""

    def __init__(self, root: ET.Element, locs: dict, filename: str):
        self.root = root
        self._locs = locs
        self.filename = filename

    def loc(self, element: ET.Element) -> Loc:
        """Where the element's start tag is."""
        return self._locs.get(element, Loc(self.filename, 1, 1))


class _Refused(Exception):
    """Raised inside an expat handler: the document uses what this reader refuses
    (``loc``: where the parser was when it met it)."""

    def __init__(self, message: str, loc: Loc):
        super().__init__(message)
        self.loc = loc


def read_xml_file(path) -> XmlDocument:
    """Read and parse the XML file ``path`` (at most MAX_BYTES); a file that cannot be
    read is a NetlistError naming it."""
    name = str(path)
    try:
        size = os.stat(path).st_size
        if size > MAX_BYTES:
            raise NetlistError(f"{name}: {size} bytes, more than the {MAX_BYTES} a model "
                               "file may have", Loc(name, 1, 1))
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise NetlistError(f"cannot read {name}: {exc.strerror or exc}") from None
    return parse_xml(data, name)


def parse_xml(data, filename: str = "<string>") -> XmlDocument:
    """Parse XML text (str or bytes); a malformed or refused document is a NetlistError
    at its line and column."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > MAX_BYTES:
        raise NetlistError(f"{len(data)} bytes, more than the {MAX_BYTES} a model file may "
                           "have", Loc(filename, 1, 1))
    builder, locs = ET.TreeBuilder(), {}
    parser = expat.ParserCreate()
    _install_handlers(parser, builder, locs, filename)
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        message = expat_errors.messages.get(exc.code, str(exc))
        raise NetlistError(f"not well-formed XML: {message}",
                           Loc(filename, exc.lineno, exc.offset + 1)) from None
    except _Refused as exc:
        raise NetlistError(str(exc), exc.loc) from None
    return XmlDocument(builder.close(), locs, filename)


def _install_handlers(parser, builder: ET.TreeBuilder, locs: dict, filename: str) -> None:
    """Elements go to ``builder`` with their position in ``locs``; text is dropped (the
    models read here keep everything in attributes); a DOCTYPE, an entity declaration or
    a reference to an external entity raise _Refused."""

    def here() -> Loc:
        """Where the parser is now."""
        return Loc(filename, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)

    def start(tag, attrs):
        if len(locs) >= MAX_ELEMENTS:
            raise _Refused(f"more than {MAX_ELEMENTS} XML elements", here())
        locs[builder.start(tag, attrs)] = here()

    def doctype(*_):
        raise _Refused("a <!DOCTYPE> declaration: refused (it could declare entities "
                       "to expand); remove it", here())

    def entity(*_):
        raise _Refused("an <!ENTITY> declaration: refused; remove it", here())

    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.ExternalEntityRefHandler = entity
