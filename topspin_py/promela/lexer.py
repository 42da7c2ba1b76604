"""What spin's own lexer (spinlex.c) decides, for the parsers of parser.py.

The post-lexer ``SpinLexerRules`` turns names into the tokens spin's lexer would make of them and
inserts the semicolons spin's lexer inserts; ``spin_expands_select`` tells which ``select``
statements spin's lexer writes out as an ``if``.
"""

from __future__ import annotations

import re

from lark import Lark, Token


class SpinLexerRules:
    """Post-lexer for the things spin's own lexer decides.

    * Names of proctypes become PNAME, so that ``P[1]:x`` is a remote reference while
      ``a[1] : x`` inside ``(c -> a[1] : x)`` is not.
    * The words of the ref/public extension of Derepas and Gastin ([DG01],
      docs/references.md) become its tokens only where plain Promela could not use them as
      names, so that a plain model keeps its variables called ``ref`` or ``public``: ``ref``
      before a proctype's name (REF), ``public`` before a type (PUBLIC), ``anyRef`` before
      ``(`` (ANYREF); ``_lid`` and ``_undef_ref`` always (LID, UNDEF_REF: SPIN's own names
      start with ``_`` too).
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
