"""Parsing Promela into the AST of ast.py.

The grammar (promela.lark) is parsed by lark's LALR parser with the contextual lexer, so that
keywords of one context (the LTL operators ``U``, ``X``, ...) stay ordinary names elsewhere.
LTL formulas are parsed separately, with the Earley parser, from the text of each ``ltl`` block:
their ``!``, ``&&`` and ``->`` overlap with Promela's own operators.

The AST is built while the LALR parser runs (lark's ``transformer=`` option), not from a parse
tree afterwards: building the tree and propagating lark's positions through it took most of
the parse time of a large model.  Positions are carried along instead (see ``_Built``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import PromelaSyntaxError, SourcePos
from . import ast
from .preprocess import Preprocessed, preprocess

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
    builder = _AstBuilder(pre or Preprocessed(text, [("<ltl>", 1)]), names, line, column)
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

class _SpinLexerRules:
    """Post-lexer for the things spin's own lexer decides.

    * Names of proctypes become PNAME, so that ``P[1]:x`` is a remote reference while
      ``a[1] : x`` inside ``(c -> a[1] : x)`` is not.
    * The words of the ref/public extension (seed 003) become its tokens only where plain
      Promela could not use them as names, so that a plain model keeps its variables called
      ``ref`` or ``public``: ``ref`` before a proctype's name (REF), ``public`` before a type
      (PUBLIC), ``anyRef`` before ``(`` (ANYREF); ``_lid`` and ``_undef_ref`` always (LID,
      UNDEF_REF: SPIN's own names start with ``_`` too).
    * Implied semicolons (spin 6, ``implied_semis`` in spinlex.c): inside a body, outside
      parentheses, a newline after a token that can end a statement acts as a ``;``; after
      ``}`` not when ``unless`` follows.
    * The two separators spin's ``yylex`` inserts whatever the layout ("repair two common
      syntax mistakes with semi-colons before or after a '}'"): after every ``}`` a ``;``
      unless the next token is ``proctype``, ``init``, ``never``, ``::``, ``fi``, ``od``,
      ``}``, ``unless``, ``;``, ``->`` or the end of the input; after ``else`` a ``;`` unless
      it is ``;``, ``->`` or ``fi``.  So ``atomic { x = 1 } x = 2`` and ``:: else x = 2``
      are two statements, while ``chan a = [1] of { byte }, b = ...`` is an error, as in spin.

    How the grammar stays LALR: it never lets a ``}`` end a statement (nor does spin.y).  A
    grammar rule for it would have to tell the statements that end in a block (``atomic``,
    ``d_step``, ``{ }``, ``for``, ``unless``) from the others, in every place a statement can
    stand, and would still miss the ``}`` of declarations (``mtype = { a }``, ``of { byte }``),
    where spin's lexer inserts the ``;`` too.  Here the separator is a token
    of the stream instead: the grammar's ``sequence`` (steps separated by ``;`` or ``->``) is
    unchanged, lark builds the same LALR(1) tables as without the rule, and the rule applies
    exactly where spin applies it, because it lives where spin's does, in the lexer.
    The ``;`` is yielded as soon as the ``}`` or ``else`` is, before the next token is lexed,
    so the contextual lexer lexes that token in the parser state after the ``;`` (in the
    state after ``}`` it could not lex a ``(`` or ``!``).  Whether the next token is one of
    the exceptions is therefore decided on the text after the ``}`` (``text``, set before
    each parse).
    """

    always_accept = ("NAME",)
    _ENDS_STATEMENT = frozenset({"RBRACE", "RPAR", "RSQB", "OD", "FI", "ELSE", "BREAK", "SKIP",
                                 "C_CODE", "C_EXPR", "C_DECL", "NAME", "PNAME", "NUMBER", "CHAR",
                                 "INCR", "DECR", "LID", "UNDEF_REF"})
    # A top-level '{' after one of these opens a list (mtype values, message fields), not a body.
    _OPENS_LIST = frozenset({"EQUAL", "OF", "MTYPE"})
    # What may follow without the inserted `;` (spinlex.c, yylex): the text after the `}` or
    # `else`, past white space and comments, starts with one of these tokens or ends.
    _SKIPPED = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
    _NO_SEMI_AFTER = {
        "RBRACE": re.compile(r"(?:proctype|init|never|fi|od|unless)(?![A-Za-z0-9_])|::|\}|;|->|\Z"),
        "ELSE": re.compile(r"fi(?![A-Za-z0-9_])|;|->"),
    }

    # The extension's words (see the class doc): the next word, or `(`, decides.
    _NEXT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    _TYPE_WORDS = frozenset({"bit", "bool", "byte", "short", "int", "pid", "chan", "unsigned",
                             "mtype", "ref"})
    _ALWAYS_EXTENSION = {"_lid": "LID", "_undef_ref": "UNDEF_REF"}

    def __init__(self) -> None:
        self.proctypes: frozenset[str] = frozenset()
        self.typedefs: frozenset[str] = frozenset()
        self.keywords: dict[str, str] = {}
        self.text = ""

    def learn_keywords(self, parser: Lark, contextual: frozenset[str]) -> None:
        """Reserve every keyword of the grammar except the ``contextual`` ones.

        The contextual lexer lexes a token in the parser state before an implied semicolon is
        inserted, so a keyword must not depend on that state: ``assert(x)`` + newline + ``do``.
        """
        name = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
        for terminal in parser.terminals:
            value = terminal.pattern.value
            if terminal.pattern.type == "str" and name.match(value) and value not in contextual:
                self.keywords[value] = terminal.name

    def process(self, stream):
        braces = parens = 0
        in_body = False
        previous = None
        for token in stream:
            if token.type == "NAME":
                if token.value in self.proctypes:
                    token = Token.new_borrow_pos("PNAME", token.value, token)
                elif token.value in self.keywords:
                    token = Token.new_borrow_pos(self.keywords[token.value], token.value, token)
                elif (extension := self._extension_word(token)) is not None:
                    token = Token.new_borrow_pos(extension, token.value, token)
            if (in_body and parens == 0 and previous is not None
                    and previous.type in self._ENDS_STATEMENT
                    and token.line > previous.end_line
                    and not (previous.type == "RBRACE" and token.type == "UNLESS")):
                yield Token.new_borrow_pos("_SEMI", ";", previous)
            if token.type == "LBRACE":
                if braces == 0 and (previous is None or previous.type not in self._OPENS_LIST):
                    in_body = True
                braces += 1
            elif token.type == "RBRACE":
                braces -= 1
                if braces == 0:
                    in_body = False
            elif token.type == "LPAR":
                parens += 1
            elif token.type == "RPAR":
                parens -= 1
            previous = token
            yield token
            rule = self._NO_SEMI_AFTER.get(token.type)
            if rule is not None and not self._next_is(rule, token):
                previous = Token.new_borrow_pos("_SEMI", ";", token)
                yield previous

    def _extension_word(self, token: Token) -> str | None:
        """The extension's token that the name ``token`` is here, or None (a plain name)."""
        if token.value in self._ALWAYS_EXTENSION:
            return self._ALWAYS_EXTENSION[token.value]
        if token.value not in ("ref", "public", "anyRef"):
            return None
        assert token.end_pos is not None  # the lexer places every token
        skipped = self._SKIPPED.match(self.text, token.end_pos)
        assert skipped is not None  # the pattern matches the empty string
        if token.value == "anyRef":
            return "ANYREF" if self.text.startswith("(", skipped.end()) else None
        word = self._NEXT_WORD.match(self.text, skipped.end())
        if word is None:
            return None
        if token.value == "ref":
            return "REF" if word.group() in self.proctypes else None
        return "PUBLIC" if word.group() in self._TYPE_WORDS or word.group() in self.typedefs else None

    def _next_is(self, rule: re.Pattern[str], token: Token) -> bool:
        """Whether the text after ``token`` (past white space and comments) matches ``rule``."""
        assert token.end_pos is not None  # the lexer places every token
        skipped = self._SKIPPED.match(self.text, token.end_pos)
        assert skipped is not None  # the pattern matches the empty string
        return rule.match(self.text, skipped.end()) is not None


def _grammar(name: str = "promela.lark") -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _spec_parser() -> tuple[Lark, _SpinLexerRules, "_AstBuilder"]:
    # One parser, post-lexer and builder per process: _parse gives the post-lexer and the
    # builder the file they work on before each parse (so one parse at a time).
    postlex = _SpinLexerRules()
    builder = _AstBuilder()
    # cache=True keeps the LALR tables in a temporary file: building them takes most of a
    # second, which every command would otherwise pay.  keep_all_tokens: the builder needs
    # the keywords and punctuation for the positions of the constructs they start.
    parser = Lark(_grammar(), start="start", parser="lalr", lexer="contextual",
                  keep_all_tokens=True, maybe_placeholders=False, postlex=postlex,
                  transformer=builder, cache=True)
    postlex.learn_keywords(parser, _CONTEXTUAL_KEYWORDS | _LTL_KEYWORDS)
    return parser, postlex, builder


@lru_cache(maxsize=1)
def _ltl_parser() -> tuple[Lark, _SpinLexerRules]:
    # Inside a formula the LTL operators (U, X, always, ...) are keywords, as in spin's ltl mode.
    postlex = _SpinLexerRules()
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


# spin's lexer (spinlex.c, EXPAND_SELECT) rewrites `select ( name : from .. upto )` into
# `if :: name = from :: ... :: name = upto fi` when the text after the keyword is, token by
# token: `(` (after any white space), a name of letters and digits, `:`, digits, `.`, `.`,
# digits, `)`, with only blanks and tabs between, and upto - from <= 32 (a wider range becomes a loop that counts
# up, as does any other select).  It does so outside inline bodies only.
_SPIN_SELECT = re.compile(r"\s*\([ \t]*[A-Za-z0-9][A-Za-z0-9 \t]*:([0-9 \t]*)\.[ \t]*\.([0-9 \t]*)\)")
SPIN_SELECT_EXPANDS = 32  # the widest upto - from spin's lexer writes out as an if


def spin_expands_select(text: str) -> bool:
    """Whether spin's lexer writes the select statement that ``text`` begins with (at its
    keyword) out as an ``if`` of one assignment per value (see _SPIN_SELECT)."""
    if not text.startswith("select"):
        return False
    match = _SPIN_SELECT.match(text, len("select"))
    if match is None or not match.group(1).strip() or not match.group(2).strip():
        return False
    bounds = [part.split() for part in (match.group(1), match.group(2))]
    if any(len(words) != 1 for words in bounds):
        return False
    low, high = int(bounds[0][0]), int(bounds[1][0])
    return low <= high and high - low <= SPIN_SELECT_EXPANDS


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
    assert isinstance(built, _Built) and isinstance(built.value, ast.Spec)
    return built.value


# Terminals whose name says more than their pattern; the others are shown as their text.
_TOKEN_TEXT = {
    "NAME": "a name", "PNAME": "a proctype name", "NUMBER": "a number", "STRING": "a string",
    "CHAR": "a character constant", "C_CODE": "c_code { ... }", "C_EXPR": "c_expr { ... }",
    "C_DECL": "c_decl { ... }", "LTL_BODY": "'{' formula '}'", "$END": "end of input",
    "REF": "'ref'", "PUBLIC": "'public'", "ANYREF": "'anyRef'", "LID": "'_lid'",
    "UNDEF_REF": "'_undef_ref'",
}


def _syntax_error(err: UnexpectedInput, text: str, builder: "_AstBuilder") -> PromelaSyntaxError:
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


def _tok(children, type_: str):
    for child in children:
        if isinstance(child, Token) and child.type == type_:
            return child
    return None


class _Tag:
    """A helper rule's value on its way into a parent node (`active`, `priority`, ...)."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: str, value) -> None:
        self.kind, self.value = kind, value


def _tagged(children, kind: str):
    for child in children:
        if isinstance(child, _Tag) and child.kind == kind:
            return child.value
    return None


def _nodes(children) -> list:
    return [c for c in children if isinstance(c, ast.Node)]


_C_BLOCK = re.compile(r"^(c_code|c_decl|c_expr)\s*(?:\[([^\]]*)\]\s*)?\{(.*)\}$", re.S)


# The terminals the callbacks read.  The others, the keywords and punctuation that the grammar
# writes as quoted strings and the `_SEMI`/`_ARROW` separators, only mark where a construct
# starts: the parsers keep all tokens for that, and _callback drops these before a callback
# sees its children, as lark itself would.  (test_promela checks this set against lark's.)
_KEPT_TERMINALS = frozenset({
    "AMP", "ANDAND", "ANYREF", "BANG", "BANGBANG", "BAR", "BIT", "BOOL", "BYTE", "CARET", "CHAN", "CHAR",
    "C_CODE", "C_DECL", "C_EXPR", "C_STATE", "C_TRACK", "DECR", "DOTDOT", "D_PROCTYPE", "EMPTY",
    "EQ", "FULL", "GE", "GT", "HIDDEN", "INCR", "INT", "LE", "LEN", "LID", "LOCAL", "LSHIFT", "LT",
    "LTL_ALWAYS", "LTL_BODY", "LTL_EQUIV", "LTL_EVENTUALLY", "MINUS", "NAME", "NE", "NEMPTY",
    "NFULL", "NOTRACE", "NUMBER", "OROR", "PERCENT", "PID", "PLUS", "PNAME", "PROCTYPE", "PUBLIC",
    "QUERY", "QUERYQUERY", "REF", "RSHIFT", "SHORT", "SHOW", "SLASH", "STAR", "STRING", "TILDE",
    "TRACE", "UNDEF_REF", "UNSIGNED", "XR", "XS",
})


class _Built:
    """A callback's value on its way up the parse, with the (line, column) where its text
    starts (None when it spans no text: an empty sequence).

    The start is that of the construct's first token, including the keywords and punctuation
    that the AST drops (an ``if`` starts at ``if``, ``(a + b) * c`` at its ``(``): the
    positions lark's ``propagate_positions`` gives, computed here only for the rules that
    build something, not at every reduction.
    """

    __slots__ = ("value", "start")

    def __init__(self, value, start: tuple[int, int] | None) -> None:
        self.value = value
        self.start = start


def _callback(build):
    """Wraps a builder method ``build(self, start, children)`` as a lark callback: from the
    raw children, the start of the construct and the children lark would have given."""

    def callback(self, raw):
        start: tuple[int, int] | None = None
        children = []
        for child in raw:
            if type(child) is _Built:
                if start is None:
                    start = child.start
                children.append(child.value)
            elif isinstance(child, Token):
                if start is None:
                    assert child.line is not None and child.column is not None  # placed by the lexer
                    start = (child.line, child.column)
                if child.type in _KEPT_TERMINALS:
                    children.append(child)
            else:
                children.append(child)
        return _Built(build(self, start, children), start)

    callback.__name__ = build.__name__
    callback.__doc__ = build.__doc__
    return callback


def _on_built(method):
    """Marks a rule callback that takes the raw children itself (``_Built`` values included)."""
    method.on_built = True
    return method


def _callbacks(cls):
    """Makes every public method of ``cls`` except ``_NOT_RULES`` a lark callback."""
    for name, value in list(vars(cls).items()):
        if callable(value) and not name.startswith("_") and name not in cls._NOT_RULES \
                and not getattr(value, "on_built", False):
            setattr(cls, name, _callback(value))
    return cls


# Binary operators by precedence, loosest first, as spin.y declares them; all associate to
# the left.  (The grammar gives operands and operators as flat lists: _AstBuilder.expr.)
_BINARY_PRECEDENCE = {op: level for level, ops in enumerate((
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
)) for op in ops}


def _nest_binary(raw: list, i: int, loosest: int, pos) -> tuple[_Built, int]:
    """The operation that starts at operand ``raw[i]`` and takes the operators from
    precedence ``loosest`` up (precedence climbing), and the index after it.  A BinOp starts
    where its left operand does, parentheses included, as with a grammar rule per level."""
    left = raw[i]
    i += 1
    while i < len(raw) and _BINARY_PRECEDENCE[raw[i].value] >= loosest:
        op = raw[i]
        right, i = _nest_binary(raw, i + 1, _BINARY_PRECEDENCE[op.value] + 1, pos)
        node = ast.BinOp(op=op.value, left=left.value, right=right.value, pos=pos(left.start))
        left = _Built(node, left.start)
    return left, i


def _ltl_binary(op: str):
    """The builder method of the LTL binary operator ``op``'s rule."""
    def build(self, start, children):
        operands = [c for c in children if not isinstance(c, Token)]
        return ast.LtlBinary(op=op, left=operands[0], right=operands[1], pos=self._pos(start))
    return build


def _ltl_unary(op: str):
    """The builder method of the LTL unary operator ``op``'s rule."""
    def build(self, start, children):
        operand = [c for c in children if not isinstance(c, Token)][0]
        return ast.LtlUnary(op=op, arg=operand, pos=self._pos(start))
    return build


@_callbacks
class _AstBuilder(Transformer):
    """Builds ast.py nodes, with positions in the user's file, one grammar rule at a time.

    Each public method is the callback of the rule (or alias) of its name.  The LALR parser
    calls them as it reduces (``transformer=``); for the Earley-parsed LTL formulas,
    ``transform`` calls them on the parse tree.
    """

    _NOT_RULES = frozenset({"position", "undecodable_byte", "begin", "end"})

    def __init__(self, pre: Preprocessed | None = None, proctypes: frozenset[str] = frozenset(),
                 line_offset: int = 1, column_offset: int = 1) -> None:
        super().__init__()
        self.pre = pre
        self.proctypes = proctypes
        self.line_offset = line_offset - 1
        self.column_offset = column_offset - 1
        self.ltl_bodies: list[tuple[ast.Ltl, Token]] = []
        self.positions: dict[tuple[int, int], SourcePos] = {}

    def begin(self, pre: Preprocessed, proctypes: frozenset[str]) -> None:
        """Start on a new file (the spec parser's builder is reused)."""
        self.pre = pre
        self.proctypes = proctypes
        self.ltl_bodies = []
        self.positions = {}

    def end(self) -> list[tuple[ast.Ltl, Token]]:
        """Done with the file: the ``ltl`` nodes built since ``begin``, with the tokens of
        their formulas."""
        bodies = self.ltl_bodies
        self.ltl_bodies, self.positions = [], {}
        return bodies

    def position(self, line: int, column: int) -> SourcePos:
        assert self.pre is not None, "the constructor or begin() gives the file"
        return self.pre.position(*self._in_file(line, column))

    def undecodable_byte(self, line: int, column: int) -> int | None:
        """The byte that is not UTF-8 text at ``line``, ``column`` (None if there is none)."""
        assert self.pre is not None, "the constructor or begin() gives the file"
        return self.pre.undecodable.get(self._in_file(line, column))

    def _in_file(self, line: int, column: int) -> tuple[int, int]:
        """The preprocessed file's line and column of a place in the text parsed."""
        if line == 1:  # the first line of an ltl formula starts after its `{`
            column += self.column_offset
        return line + self.line_offset, column

    def _pos(self, start: tuple[int, int] | None) -> SourcePos | None:
        if start is None:
            return None
        # Remembered: half the nodes start where another does (a statement and its first
        # expression, an operation and its left operand).
        pos = self.positions.get(start)
        if pos is None:
            pos = self.positions[start] = self.position(start[0], start[1])
        return pos

    # ------------------------------------------------------------------ top level
    def start(self, start, children):
        return ast.Spec(units=_nodes(children), pos=self._pos(start))

    def proctype(self, start, children):
        name = _tok(children, "PNAME")
        params = _tagged(children, "params") or []
        body = next(c for c in children if isinstance(c, ast.Sequence))
        active = _tagged(children, "active")
        return ast.Proctype(name=str(name), params=params, body=body,
                            active=active, priority=_tagged(children, "priority"),
                            provided=_tagged(children, "provided"),
                            deterministic=_tok(children, "D_PROCTYPE") is not None,
                            pos=self._pos(start))

    def active(self, start, children):
        count = children[0] if children else ast.Const(1)
        return _Tag("active", count)

    def param_list(self, start, children):
        return _Tag("params", _nodes(children))

    def priority(self, start, children):
        return _Tag("priority", children[0])

    def provided(self, start, children):
        return _Tag("provided", children[0])

    def init(self, start, children):
        body = next(c for c in children if isinstance(c, ast.Sequence))
        return ast.Init(body=body, priority=_tagged(children, "priority"), pos=self._pos(start))

    def never(self, start, children):
        name = _tok(children, "NAME")
        return ast.Never(body=children[-1], name=str(name) if name else None, pos=self._pos(start))

    def trace(self, start, children):
        return ast.Trace(body=children[-1], negated=_tok(children, "NOTRACE") is not None,
                         pos=self._pos(start))

    def ltl(self, start, children):
        name = _tok(children, "NAME")
        body = _tok(children, "LTL_BODY")
        text = body.value[1:-1].strip()
        node = ast.Ltl(name=str(name) if name else None, text=text, formula=None,
                       pos=self._pos(start))
        self.ltl_bodies.append((node, body))  # _parse parses the formula after the file
        return node

    def body(self, start, children):
        return children[0]

    def typedef(self, start, children):
        return ast.TypeDef(name=str(children[0]), fields=_nodes(children), pos=self._pos(start))

    def mtype_decl(self, start, children):
        names = [str(c) for c in children if isinstance(c, Token)]
        return ast.MtypeDecl(names=names, subtype=_tagged(children, "subtype"), pos=self._pos(start))

    def mtype_subtype(self, start, children):
        return _Tag("subtype", str(children[0]))

    def decl_stmt(self, start, children):
        return children[0]

    def decl(self, start, children):
        visibility = _tagged(children, "visibility")
        type_ = next(c for c in children if isinstance(c, (ast.TypeName, ast.RefType)))
        vars_ = [c for c in children if isinstance(c, ast.VarDecl)]
        return ast.Decl(visibility=visibility, type=type_, vars=vars_, pos=self._pos(start))

    def visibility(self, start, children):
        return _Tag("visibility", str(children[0]))

    def base_type(self, start, children):
        return ast.TypeName(name=str(children[0]), pos=self._pos(start))

    def mtype_type(self, start, children):
        return ast.TypeName(name="mtype", subtype=str(children[0]) if children else None,
                            pos=self._pos(start))

    def user_type(self, start, children):
        return ast.TypeName(name=str(children[0]), pos=self._pos(start))

    def ref_type(self, start, children):
        return ast.RefType(proctype=str(_tok(children, "PNAME")), pos=self._pos(start))

    def ivar(self, start, children):
        return ast.VarDecl(name=str(children[0]), size=_tagged(children, "size"),
                           bits=_tagged(children, "bits"), init=_tagged(children, "init"),
                           pos=self._pos(start))

    def array_size(self, start, children):
        return _Tag("size", children[0])

    def bit_width(self, start, children):
        return _Tag("bits", children[0])

    def initializer(self, start, children):
        return _Tag("init", children[0])

    def ch_init(self, start, children):
        capacity = children[0]
        return ast.ChanInit(capacity=capacity, fields=[c for c in children[1:]], pos=self._pos(start))

    def chan_field(self, start, children):
        return children[0]

    def inline_def(self, start, children):
        name = str(children[0])
        params = [str(c) for c in children[1:] if isinstance(c, Token)]
        return ast.Inline(name=name, params=params, body=children[-1], pos=self._pos(start))

    def c_code(self, start, children):
        return self._c_block(children[0], start)

    def _c_block(self, token: Token, start):
        match = _C_BLOCK.match(token.value)
        assert match is not None  # the grammar's C_CODE and C_EXPR terminals have this shape
        kind, guard, text = match.group(1), match.group(2), match.group(3)
        if kind == "c_expr":
            return ast.CExpr(guard=guard, text=text, pos=self._pos(start))
        return ast.CCode(kind=kind, guard=guard, text=text, pos=self._pos(start))

    def c_state(self, start, children):
        return ast.CState(kind=str(children[0]), args=[str(c) for c in children[1:]],
                          pos=self._pos(start))

    # ------------------------------------------------------------------ statements
    def sequence(self, start, children):
        return ast.Sequence(steps=_nodes(children), pos=self._pos(start))

    def unless(self, start, children):
        return ast.Unless(stmt=children[0], escape=children[1], pos=self._pos(start))

    def xrxs(self, start, children):
        return ast.XrXs(kind=str(children[0]), vars=children[1:], pos=self._pos(start))

    def labeled(self, start, children):
        return ast.Labeled(label=str(children[0]), stmt=children[1], pos=self._pos(start))

    def label_only(self, start, children):
        # spin.y: a label with no statement labels a skip (the constant 1, as `skip` is)
        return ast.Labeled(label=str(children[0]), stmt=ast.Skip(pos=self._pos(start)),
                           pos=self._pos(start))

    def assign(self, start, children):
        return ast.Assign(target=children[0], value=children[1], pos=self._pos(start))

    def incr(self, start, children):
        return ast.IncDec(target=children[0], op="++", pos=self._pos(start))

    def decr(self, start, children):
        return ast.IncDec(target=children[0], op="--", pos=self._pos(start))

    def send(self, start, children):
        return ast.Send(chan=children[0], args=children[2], sorted=children[1].type == "BANGBANG",
                        pos=self._pos(start))

    def receive(self, start, children):
        return ast.Receive(chan=children[0], args=children[2], random=children[1].type == "QUERYQUERY",
                           keep=False, pos=self._pos(start))

    def receive_keep(self, start, children):
        return ast.Receive(chan=children[0], args=children[3], random=children[1].type == "QUERYQUERY",
                           keep=True, pos=self._pos(start))

    def args(self, start, children):
        return list(children)

    def brace_args(self, start, children):
        return list(children)

    def more_args(self, start, children):
        return [children[0], *children[1]]

    def paren_args(self, start, children):
        return children[0]

    def eval_arg(self, start, children):
        return ast.Eval(expr=children[0], pos=self._pos(start))

    def neg_const(self, start, children):
        return ast.Const(value=-int(children[1]), pos=self._pos(start))

    def options(self, start, children):
        return list(children)

    def if_stmt(self, start, children):
        return ast.If(options=children[0], pos=self._pos(start))

    def do_stmt(self, start, children):
        return ast.Do(options=children[0], pos=self._pos(start))

    def atomic(self, start, children):
        return ast.Atomic(body=children[0], pos=self._pos(start))

    def d_step(self, start, children):
        return ast.DStep(body=children[0], pos=self._pos(start))

    def block(self, start, children):
        return ast.Block(body=children[0], pos=self._pos(start))

    def for_range(self, start, children):
        var, lo, _, hi, body = children
        return ast.ForRange(var=var, lo=lo, hi=hi, body=body, pos=self._pos(start))

    def for_in(self, start, children):
        return ast.ForIn(var=children[0], array=children[1], body=children[2], pos=self._pos(start))

    def select(self, start, children):
        var, lo, _, hi = children
        return ast.Select(var=var, lo=lo, hi=hi, expands=self._spin_expands_select(start),
                          pos=self._pos(start))

    def _spin_expands_select(self, start: tuple[int, int] | None) -> bool:
        """Whether spin's lexer rewrites the select statement at ``start`` into an ``if`` (see
        spin_expands_select), read off the text as spin's lexer reads it."""
        if start is None or self.pre is None:
            return False
        lines = self.pre.text.split("\n")
        line, column = self._in_file(*start)
        if not 1 <= line <= len(lines):
            return False
        return spin_expands_select("\n".join([lines[line - 1][max(column - 1, 0):], *lines[line:line + 8]]))

    def break_stmt(self, start, children):
        return ast.Break(pos=self._pos(start))

    def goto(self, start, children):
        return ast.Goto(label=str(children[0]), pos=self._pos(start))

    def else_stmt(self, start, children):
        return ast.Else(pos=self._pos(start))

    def skip(self, start, children):
        return ast.Skip(pos=self._pos(start))

    def printf(self, start, children):
        return ast.Printf(fmt=str(children[0]), args=list(children[1:]), pos=self._pos(start))

    def printm(self, start, children):
        return ast.Printm(arg=children[0], pos=self._pos(start))

    def assert_stmt(self, start, children):
        return ast.Assert(expr=children[0], pos=self._pos(start))

    def inline_call(self, start, children):
        return ast.InlineCall(name=str(children[0]), args=list(children[1:]), pos=self._pos(start))

    def c_code_stmt(self, start, children):
        return children[0]

    def expr_stmt(self, start, children):
        return ast.ExprStmt(expr=children[0], pos=self._pos(start))

    # ------------------------------------------------------------------ expressions
    @_on_built
    def expr(self, raw):
        """``operand (operator operand)*``, nested by precedence."""
        return _nest_binary(raw, 0, 0, self._pos)[0]

    bor_expr = expr

    def binop(self, start, children):  # ltl_expressions.lark: a rule per precedence level
        left, op, right = children
        return ast.BinOp(op=str(op), left=left, right=right, pos=self._pos(start))

    def primary(self, start, children):
        # `( expr )`: lark inlines a `?rule` left with one child, but with all tokens kept the
        # parentheses are children too; the expression starts at its `(`, as lark has it.
        return children[0]

    def unop(self, start, children):
        op, operand = children
        if op == "-" and isinstance(operand, ast.Const):
            return ast.Const(value=-operand.value, pos=self._pos(start))
        return ast.UnOp(op=str(op), operand=operand, pos=self._pos(start))

    def cond_expr(self, start, children):
        return ast.CondExpr(cond=children[0], then=children[1], other=children[2], pos=self._pos(start))

    def const(self, start, children):
        return ast.Const(value=int(children[0]), pos=self._pos(start))

    def char_const(self, start, children):
        text = children[0].value[1:-1]
        value = ord(text.encode().decode("unicode_escape")) if text.startswith("\\") else ord(text)
        return ast.Const(value=value, pos=self._pos(start))

    def chan_fn(self, start, children):
        return ast.ChanFn(fn=str(children[0]), chan=children[1], pos=self._pos(start))

    def enabled(self, start, children):
        return ast.Builtin(fn="enabled", args=list(children), pos=self._pos(start))

    def pc_value(self, start, children):
        return ast.Builtin(fn="pc_value", args=list(children), pos=self._pos(start))

    def get_priority(self, start, children):
        return ast.Builtin(fn="get_priority", args=list(children), pos=self._pos(start))

    def set_priority(self, start, children):
        return ast.Builtin(fn="set_priority", args=list(children), pos=self._pos(start))

    def run(self, start, children):
        name = str(children[0])
        args = [c for c in children[1:] if isinstance(c, ast.Node)]
        return ast.Run(proctype=name, args=args, priority=_tagged(children, "priority"),
                       pos=self._pos(start))

    def poll(self, start, children):
        return ast.Poll(chan=children[0], args=children[2], random=children[1].type == "QUERYQUERY",
                        pos=self._pos(start))

    def remote_label(self, start, children):
        return ast.RemoteLabel(proctype=str(children[0]), index=children[1], label=str(children[2]),
                               pos=self._pos(start))

    def remote_label_bare(self, start, children):
        return ast.RemoteLabel(proctype=str(children[0]), index=None, label=str(children[1]),
                               pos=self._pos(start))

    def remote_var(self, start, children):
        return ast.RemoteVar(proctype=str(children[0]), index=children[1], var=children[2],
                             pos=self._pos(start))

    def remote_var_bare(self, start, children):
        return ast.RemoteVar(proctype=str(children[0]), index=None, var=children[1], pos=self._pos(start))

    def c_expr(self, start, children):
        return self._c_block(children[0], start)

    def varref(self, start, children):
        return ast.VarRef(name=str(children[0]), index=_tagged(children, "index"),
                          field=_tagged(children, "field"), pos=self._pos(start))

    def public_access(self, start, children):
        name, ref, var = children
        return ast.PublicAccess(proctype=str(name), ref=ref, var=var, pos=self._pos(start))

    def any_ref(self, start, children):
        return ast.AnyRef(proctype=str(_tok(children, "PNAME")), pos=self._pos(start))

    def lid(self, start, children):
        return ast.Lid(pos=self._pos(start))

    def undef_ref(self, start, children):
        return ast.UndefRef(pos=self._pos(start))

    def index(self, start, children):
        return _Tag("index", children[0])

    def field(self, start, children):
        return _Tag("field", children[0])

    # ------------------------------------------------------------------ LTL
    def ltl_formula(self, start, children):
        return children[0]

    def ltl_atom(self, start, children):
        return children[0]  # `( formula )`, as primary

    ltl_equiv = _ltl_binary("<->")
    ltl_implies = _ltl_binary("->")
    ltl_or = _ltl_binary("||")
    ltl_and = _ltl_binary("&&")
    ltl_until = _ltl_binary("U")
    ltl_weakuntil = _ltl_binary("W")
    ltl_release = _ltl_binary("V")
    ltl_always = _ltl_unary("[]")
    ltl_eventually = _ltl_unary("<>")
    ltl_next = _ltl_unary("X")
    ltl_not = _ltl_unary("!")
