"""Parsing Promela into the AST of ast.py: the parsers, the entry points, the syntax errors.

The grammar (promela.lark) is parsed by lark's LALR parser with the contextual lexer, so that
keywords of one context (the LTL operators ``U``, ``X``, ...) stay ordinary names elsewhere.
LTL formulas are parsed separately, with the Earley parser, from the text of each ``ltl`` block:
their ``!``, ``&&`` and ``->`` overlap with Promela's own operators.

What spin's own lexer decides (proctype names, implied semicolons, the extension's words) is
the post-lexer of lexer.py.  The AST is built while the LALR parser runs (lark's
``transformer=`` option), not from a parse tree afterwards: building the tree and propagating
lark's positions through it took most of the parse time of a large model.  Positions are
carried along instead (transformer.py, ``Built``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import PromelaSyntaxError
from . import ast
from .lexer import SpinLexerRules
from .preprocess import Preprocessed, preprocess
from .transformer import _KEPT_TERMINALS as _KEPT_TERMINALS  # re-exported: test_promela reads it here
from .transformer import AstBuilder, Built

_PROCTYPE_DECL = re.compile(r"\b(?:proctype|D_proctype)\s+([A-Za-z_][A-Za-z0-9_]*)")
_TYPEDEF_DECL = re.compile(r"\btypedef\s+([A-Za-z_][A-Za-z0-9_]*)")


def parse_file(path: str | Path, defines: tuple[str, ...] | list[str] = (),
               cpp_flags: tuple[str, ...] = ()) -> ast.Spec:
    """Preprocess ``path`` as spin does (with ``-D`` ``defines`` and spin's ``-E`` flags
    ``cpp_flags``) and parse it."""
    pre = preprocess(path, defines, cpp_flags)
    return _parse(pre)


def parse_text(text: str, filename: str = "<string>") -> ast.Spec:
    """Parse text that is already preprocessed (no ``#`` directives)."""
    lines = text.split("\n")
    return _parse(Preprocessed(text, [(filename, i + 1) for i in range(len(lines))]))


def parse_ltl_formula(text: str, pre: Preprocessed | None = None, line: int = 1, column: int = 1):
    """Parse an LTL formula (the text between the braces of an ``ltl`` block)."""
    names = _proctype_names(pre.text) if pre is not None else frozenset()
    builder = AstBuilder(pre or Preprocessed(text, [("<ltl>", 1)]), names, line, column)
    parser, postlex = _ltl_parser()
    postlex.proctypes = names
    postlex.typedefs = frozenset(_TYPEDEF_DECL.findall(pre.text)) if pre is not None else frozenset()
    postlex.text = text
    try:
        tree = parser.parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, builder) from None
    # Earley cannot run a transformer while it parses: the tree is built, then turned into
    # the AST by the same callbacks (formulas are short).
    return builder.transform(tree).value


# ---------------------------------------------------------------------------------- internals

def _grammar(name: str = "promela.lark") -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _spec_parser() -> tuple[Lark, SpinLexerRules, AstBuilder]:
    # One parser, post-lexer and builder per process: _parse gives the post-lexer and the
    # builder the file they work on before each parse (so one parse at a time).
    postlex = SpinLexerRules()
    builder = AstBuilder()
    # cache=True keeps the LALR tables in a temporary file: building them takes most of a
    # second, which every command would otherwise pay.  keep_all_tokens: the builder needs
    # the keywords and punctuation for the positions of the constructs they start.
    parser = Lark(_grammar(), start="start", parser="lalr", lexer="contextual",
                  keep_all_tokens=True, maybe_placeholders=False, postlex=postlex,
                  transformer=builder, cache=True)
    postlex.learn_keywords(parser, _CONTEXTUAL_KEYWORDS | _LTL_KEYWORDS)
    return parser, postlex, builder


@lru_cache(maxsize=1)
def _ltl_parser() -> tuple[Lark, SpinLexerRules]:
    # Inside a formula the LTL operators (U, X, always, ...) are keywords, as in spin's ltl mode.
    postlex = SpinLexerRules()
    grammar = _grammar() + "\n" + _grammar("ltl_expressions.lark")
    parser = Lark(grammar, start="ltl_formula", parser="earley", lexer="basic",
                  keep_all_tokens=True, maybe_placeholders=False, ambiguity="resolve",
                  postlex=postlex)
    postlex.learn_keywords(parser, _CONTEXTUAL_KEYWORDS)
    return parser, postlex


# Words that are keywords only where the grammar expects them: `in` only in `for (x in a)` (a
# channel parameter is often called `in`), the LTL operators only inside formulas.
_CONTEXTUAL_KEYWORDS = frozenset({"in"})
_LTL_KEYWORDS = frozenset({"U", "W", "V", "X", "until", "stronguntil", "weakuntil", "release",
                           "always", "eventually", "next", "implies", "equivalent"})


def _proctype_names(text: str) -> frozenset[str]:
    return frozenset(_PROCTYPE_DECL.findall(text))


def _parse(pre: Preprocessed) -> ast.Spec:
    parser, postlex, builder = _spec_parser()
    names = _proctype_names(pre.text)
    postlex.proctypes = names
    postlex.typedefs = frozenset(_TYPEDEF_DECL.findall(pre.text))
    postlex.text = pre.text
    builder.begin(pre, names)
    try:
        built = parser.parse(pre.text)
    except UnexpectedInput as err:
        raise _syntax_error(err, pre.text, builder) from None
    # The formulas are parsed once the whole file has parsed, so that a syntax error anywhere
    # in the file is reported before an error inside a formula.
    for node, body in builder.end():
        assert body.line is not None and body.column is not None  # the lexer places every token
        node.formula = parse_ltl_formula(body.value[1:-1], pre, body.line, body.column + 1)
    # The builder is the parser's transformer: what parse returns is its start rule's value.
    assert isinstance(built, Built) and isinstance(built.value, ast.Spec)
    return built.value


# Terminals whose name says more than their pattern; the others are shown as their text.
_TOKEN_TEXT = {
    "NAME": "a name", "PNAME": "a proctype name", "NUMBER": "a number", "STRING": "a string",
    "CHAR": "a character constant", "C_CODE": "c_code { ... }", "C_EXPR": "c_expr { ... }",
    "C_DECL": "c_decl { ... }", "LTL_BODY": "'{' formula '}'", "$END": "end of input",
    "REF": "'ref'", "PUBLIC": "'public'", "ANYREF": "'anyRef'", "LID": "'_lid'",
    "UNDEF_REF": "'_undef_ref'",
}


def _syntax_error(err: UnexpectedInput, text: str, builder: AstBuilder) -> PromelaSyntaxError:
    line = getattr(err, "line", 0) or 0
    column = getattr(err, "column", 0) or 0
    pos = builder.position(line, column) if line > 0 else builder.position(text.count("\n") + 1, 0)
    if isinstance(err, UnexpectedToken):
        token = err.token
        seen = "end of input" if token.type == "$END" else f"'{token.value}'"
        expected = sorted(_describe(name) for name in err.expected)
        message = f"syntax error: unexpected {seen}"
        if expected and len(expected) <= 8:
            message += ", expected " + ", ".join(expected)
    elif isinstance(err, UnexpectedCharacters):
        if err.char == "\ufffd" or not err.char.isprintable():
            # U+FFFD: a byte that is not UTF-8 (preprocess.py keeps which); spin's lexer, too,
            # stops at any byte that is not ASCII outside comments, strings and c_code.
            byte = builder.undecodable_byte(line, column) if err.char == "\ufffd" \
                else ord(err.char) if err.char.isascii() else None
            seen = f"byte 0x{byte:02X}" if byte is not None else \
                f"character U+{ord(err.char):04X}" if err.char != "\ufffd" else "a byte"
            return PromelaSyntaxError(
                f"syntax error: {seen}, which is not Promela text", pos,
                hint="is this a Promela model?  Outside comments, strings and c_code, Promela is "
                     "ASCII text")
        message = f"syntax error: unexpected character '{err.char}'"
    elif isinstance(err, UnexpectedEOF):
        message = "syntax error: unexpected end of input"
    else:
        message = "syntax error"
    return PromelaSyntaxError(message, pos,
                              hint="check the statement before this point (a missing ';', "
                                   "'fi', 'od' or brace is the usual cause)")


def _describe(terminal: str) -> str:
    if terminal in _TOKEN_TEXT:
        return _TOKEN_TEXT[terminal]
    parser, _, _ = _spec_parser()
    for definition in parser.terminals:
        if definition.name == terminal and definition.pattern.type == "str":
            return f"'{definition.pattern.value}'"
    return terminal.lower()
