"""Parsing Promela into the AST of ast.py.

The grammar (promela.lark) is parsed by lark's LALR parser with the contextual lexer, so that
keywords of one context (the LTL operators ``U``, ``X``, ...) stay ordinary names elsewhere.
LTL formulas are parsed separately, with the Earley parser, from the text of each ``ltl`` block:
their ``!``, ``&&`` and ``->`` overlap with Promela's own operators.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ..errors import PromelaSyntaxError, SourcePos, TopspinError
from . import ast
from .preprocess import Preprocessed, preprocess

_PROCTYPE_DECL = re.compile(r"\b(?:proctype|D_proctype)\s+([A-Za-z_][A-Za-z0-9_]*)")


def parse_file(path: str | Path, defines: tuple[str, ...] | list[str] = ()) -> ast.Spec:
    """Preprocess ``path`` as spin does (with ``-D`` ``defines``) and parse it."""
    pre = preprocess(path, defines)
    return _parse(pre)


def parse_text(text: str, filename: str = "<string>") -> ast.Spec:
    """Parse text that is already preprocessed (no ``#`` directives)."""
    lines = text.split("\n")
    return _parse(Preprocessed(text, [(filename, i + 1) for i in range(len(lines))]))


def parse_ltl_formula(text: str, pre: Preprocessed | None = None, line: int = 1, column: int = 1):
    """Parse an LTL formula (the text between the braces of an ``ltl`` block)."""
    names = _proctype_names(pre.text) if pre is not None else frozenset()
    transformer = _AstBuilder(pre or Preprocessed(text, [("<ltl>", 1)]), names, line, column)
    parser, postlex = _ltl_parser()
    postlex.proctypes = names
    try:
        tree = parser.parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, transformer) from None
    return transformer.transform(tree)


# ---------------------------------------------------------------------------------- internals

class _SpinLexerRules:
    """Post-lexer for the two things spin's own lexer decides.

    * Names of proctypes become PNAME, so that ``P[1]:x`` is a remote reference while
      ``a[1] : x`` inside ``(c -> a[1] : x)`` is not.
    * Implied semicolons (spin 6, ``implied_semis`` in spinlex.c): inside a body, outside
      parentheses, a newline after a token that can end a statement acts as a ``;``; after
      ``}`` not when ``unless`` follows.
    """

    always_accept = ("NAME",)
    _ENDS_STATEMENT = frozenset({"RBRACE", "RPAR", "RSQB", "OD", "FI", "ELSE", "BREAK", "SKIP",
                                 "C_CODE", "C_EXPR", "C_DECL", "NAME", "PNAME", "NUMBER", "CHAR",
                                 "INCR", "DECR"})
    # A top-level '{' after one of these opens a list (mtype values, message fields), not a body.
    _OPENS_LIST = frozenset({"EQUAL", "OF", "MTYPE"})

    def __init__(self) -> None:
        self.proctypes: frozenset[str] = frozenset()
        self.keywords: dict[str, str] = {}

    def learn_keywords(self, parser: Lark, contextual: frozenset[str]) -> None:
        """Reserve every keyword of the grammar except the ``contextual`` ones.

        The contextual lexer lexes a token in the parser state before an implied semicolon is
        inserted, so a keyword must not depend on that state: ``assert(x)`` + newline + ``do``.
        """
        name = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
        for terminal in parser.terminals:
            value = getattr(terminal.pattern, "value", None)
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


def _grammar() -> str:
    return resources.files(__package__).joinpath("promela.lark").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _spec_parser() -> tuple[Lark, _SpinLexerRules]:
    postlex = _SpinLexerRules()
    # cache=True keeps the LALR tables in a temporary file: building them takes most of a
    # second, which every command would otherwise pay.
    parser = Lark(_grammar(), start="start", parser="lalr", lexer="contextual",
                  propagate_positions=True, maybe_placeholders=False, postlex=postlex, cache=True)
    postlex.learn_keywords(parser, _CONTEXTUAL_KEYWORDS | _LTL_KEYWORDS)
    return parser, postlex


@lru_cache(maxsize=1)
def _ltl_parser() -> tuple[Lark, _SpinLexerRules]:
    # Inside a formula the LTL operators (U, X, always, ...) are keywords, as in spin's ltl mode.
    postlex = _SpinLexerRules()
    parser = Lark(_grammar(), start="ltl_formula", parser="earley", lexer="basic",
                  propagate_positions=True, maybe_placeholders=False, ambiguity="resolve",
                  postlex=postlex)
    postlex.learn_keywords(parser, _CONTEXTUAL_KEYWORDS)
    return parser, postlex


# Words that are keywords only where the grammar expects them: `in` only in `for (x in a)` (a
# channel parameter is often called `in`), the LTL operators only inside formulas.
_CONTEXTUAL_KEYWORDS = frozenset({"in"})
_LTL_KEYWORDS = frozenset({"U", "W", "V", "R", "X", "until", "weakuntil", "stronger", "release",
                           "always", "eventually", "next", "implies", "equivalent"})


def _proctype_names(text: str) -> frozenset[str]:
    return frozenset(_PROCTYPE_DECL.findall(text))


def _parse(pre: Preprocessed) -> ast.Spec:
    parser, postlex = _spec_parser()
    names = _proctype_names(pre.text)
    postlex.proctypes = names
    builder = _AstBuilder(pre, names)
    try:
        tree = parser.parse(pre.text)
        return builder.transform(tree)
    except UnexpectedInput as err:
        raise _syntax_error(err, pre.text, builder) from None
    except VisitError as err:
        if isinstance(err.orig_exc, TopspinError):
            raise err.orig_exc from None
        raise


# Terminals whose name says more than their pattern; the others are shown as their text.
_TOKEN_TEXT = {
    "NAME": "a name", "PNAME": "a proctype name", "NUMBER": "a number", "STRING": "a string",
    "CHAR": "a character constant", "C_CODE": "c_code { ... }", "C_EXPR": "c_expr { ... }",
    "C_DECL": "c_decl { ... }", "LTL_BODY": "'{' formula '}'", "$END": "end of input",
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
    parser, _ = _spec_parser()
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


@v_args(meta=True)
class _AstBuilder(Transformer):
    """Turns lark's parse tree into ast.py nodes, with positions in the user's file."""

    def __init__(self, pre: Preprocessed, proctypes: frozenset[str], line_offset: int = 1,
                 column_offset: int = 1) -> None:
        super().__init__()
        self.pre = pre
        self.proctypes = proctypes
        self.line_offset = line_offset - 1
        self.column_offset = column_offset - 1

    def position(self, line: int, column: int) -> SourcePos:
        if self.line_offset == 0 and line == 1:
            column += self.column_offset
        return self.pre.position(line + self.line_offset, column)

    def _pos(self, meta) -> SourcePos | None:
        if getattr(meta, "empty", True):
            return None
        return self.position(meta.line, meta.column)

    # ------------------------------------------------------------------ top level
    def start(self, meta, children):
        return ast.Spec(units=_nodes(children), pos=self._pos(meta))

    def proctype(self, meta, children):
        name = _tok(children, "PNAME")
        params = _tagged(children, "params") or []
        body = next(c for c in children if isinstance(c, ast.Sequence))
        active = _tagged(children, "active")
        return ast.Proctype(name=str(name), params=params, body=body,
                            active=active, priority=_tagged(children, "priority"),
                            provided=_tagged(children, "provided"),
                            deterministic=_tok(children, "D_PROCTYPE") is not None,
                            pos=self._pos(meta))

    def active(self, meta, children):
        count = children[0] if children else ast.Const(1)
        return _Tag("active", count)

    def param_list(self, meta, children):
        return _Tag("params", _nodes(children))

    def priority(self, meta, children):
        return _Tag("priority", children[0])

    def provided(self, meta, children):
        return _Tag("provided", children[0])

    def init(self, meta, children):
        body = next(c for c in children if isinstance(c, ast.Sequence))
        return ast.Init(body=body, priority=_tagged(children, "priority"), pos=self._pos(meta))

    def never(self, meta, children):
        return ast.Never(body=children[0], pos=self._pos(meta))

    def trace(self, meta, children):
        return ast.Trace(body=children[-1], negated=_tok(children, "NOTRACE") is not None,
                         pos=self._pos(meta))

    def ltl(self, meta, children):
        name = _tok(children, "NAME")
        body = _tok(children, "LTL_BODY")
        text = body.value[1:-1].strip()
        formula = parse_ltl_formula(body.value[1:-1], self.pre, body.line, body.column + 1)
        return ast.Ltl(name=str(name) if name else None, text=text, formula=formula,
                       pos=self._pos(meta))

    def body(self, meta, children):
        return children[0]

    def typedef(self, meta, children):
        return ast.TypeDef(name=str(children[0]), fields=_nodes(children), pos=self._pos(meta))

    def mtype_decl(self, meta, children):
        names = [str(c) for c in children if isinstance(c, Token)]
        return ast.MtypeDecl(names=names, subtype=_tagged(children, "subtype"), pos=self._pos(meta))

    def mtype_subtype(self, meta, children):
        return _Tag("subtype", str(children[0]))

    def decl_stmt(self, meta, children):
        return children[0]

    def decl(self, meta, children):
        visibility = _tagged(children, "visibility")
        type_ = next(c for c in children if isinstance(c, ast.TypeName))
        vars_ = [c for c in children if isinstance(c, ast.VarDecl)]
        return ast.Decl(visibility=visibility, type=type_, vars=vars_, pos=self._pos(meta))

    def visibility(self, meta, children):
        return _Tag("visibility", str(children[0]))

    def base_type(self, meta, children):
        return ast.TypeName(name=str(children[0]), pos=self._pos(meta))

    def mtype_type(self, meta, children):
        return ast.TypeName(name="mtype", subtype=str(children[0]) if children else None,
                            pos=self._pos(meta))

    def user_type(self, meta, children):
        return ast.TypeName(name=str(children[0]), pos=self._pos(meta))

    def ivar(self, meta, children):
        return ast.VarDecl(name=str(children[0]), size=_tagged(children, "size"),
                           bits=_tagged(children, "bits"), init=_tagged(children, "init"),
                           pos=self._pos(meta))

    def array_size(self, meta, children):
        return _Tag("size", children[0])

    def bit_width(self, meta, children):
        return _Tag("bits", children[0])

    def initializer(self, meta, children):
        return _Tag("init", children[0])

    def ch_init(self, meta, children):
        capacity = children[0]
        return ast.ChanInit(capacity=capacity, fields=[c for c in children[1:]], pos=self._pos(meta))

    def chan_field(self, meta, children):
        return children[0]

    def inline_def(self, meta, children):
        name = str(children[0])
        params = [str(c) for c in children[1:] if isinstance(c, Token)]
        return ast.Inline(name=name, params=params, body=children[-1], pos=self._pos(meta))

    def c_code(self, meta, children):
        return self._c_block(children[0], meta)

    def _c_block(self, token: Token, meta):
        match = _C_BLOCK.match(token.value)
        kind, guard, text = match.group(1), match.group(2), match.group(3)
        if kind == "c_expr":
            return ast.CExpr(guard=guard, text=text, pos=self._pos(meta))
        return ast.CCode(kind=kind, guard=guard, text=text, pos=self._pos(meta))

    def c_state(self, meta, children):
        return ast.CState(kind=str(children[0]), args=[str(c) for c in children[1:]],
                          pos=self._pos(meta))

    # ------------------------------------------------------------------ statements
    def sequence(self, meta, children):
        return ast.Sequence(steps=_nodes(children), pos=self._pos(meta))

    def unless(self, meta, children):
        return ast.Unless(stmt=children[0], escape=children[1], pos=self._pos(meta))

    def xrxs(self, meta, children):
        return ast.XrXs(kind=str(children[0]), vars=children[1:], pos=self._pos(meta))

    def labeled(self, meta, children):
        return ast.Labeled(label=str(children[0]), stmt=children[1], pos=self._pos(meta))

    def assign(self, meta, children):
        return ast.Assign(target=children[0], value=children[1], pos=self._pos(meta))

    def incr(self, meta, children):
        return ast.IncDec(target=children[0], op="++", pos=self._pos(meta))

    def decr(self, meta, children):
        return ast.IncDec(target=children[0], op="--", pos=self._pos(meta))

    def send(self, meta, children):
        return ast.Send(chan=children[0], args=children[2], sorted=children[1].type == "BANGBANG",
                        pos=self._pos(meta))

    def receive(self, meta, children):
        return ast.Receive(chan=children[0], args=children[2], random=children[1].type == "QUERYQUERY",
                           keep=False, pos=self._pos(meta))

    def receive_keep(self, meta, children):
        return ast.Receive(chan=children[0], args=children[3], random=children[1].type == "QUERYQUERY",
                           keep=True, pos=self._pos(meta))

    def args(self, meta, children):
        return list(children)

    def brace_args(self, meta, children):
        return list(children)

    def eval_arg(self, meta, children):
        return ast.Eval(expr=children[0], pos=self._pos(meta))

    def neg_const(self, meta, children):
        return ast.Const(value=-int(children[1]), pos=self._pos(meta))

    def options(self, meta, children):
        return list(children)

    def if_stmt(self, meta, children):
        return ast.If(options=children[0], pos=self._pos(meta))

    def do_stmt(self, meta, children):
        return ast.Do(options=children[0], pos=self._pos(meta))

    def atomic(self, meta, children):
        return ast.Atomic(body=children[0], pos=self._pos(meta))

    def d_step(self, meta, children):
        return ast.DStep(body=children[0], pos=self._pos(meta))

    def block(self, meta, children):
        return ast.Block(body=children[0], pos=self._pos(meta))

    def for_range(self, meta, children):
        var, lo, _, hi, body = children
        return ast.ForRange(var=var, lo=lo, hi=hi, body=body, pos=self._pos(meta))

    def for_in(self, meta, children):
        return ast.ForIn(var=children[0], array=children[1], body=children[2], pos=self._pos(meta))

    def select(self, meta, children):
        var, lo, _, hi = children
        return ast.Select(var=var, lo=lo, hi=hi, pos=self._pos(meta))

    def break_stmt(self, meta, children):
        return ast.Break(pos=self._pos(meta))

    def goto(self, meta, children):
        return ast.Goto(label=str(children[0]), pos=self._pos(meta))

    def else_stmt(self, meta, children):
        return ast.Else(pos=self._pos(meta))

    def skip(self, meta, children):
        return ast.Skip(pos=self._pos(meta))

    def printf(self, meta, children):
        return ast.Printf(fmt=str(children[0]), args=list(children[1:]), pos=self._pos(meta))

    def printm(self, meta, children):
        return ast.Printm(arg=children[0], pos=self._pos(meta))

    def assert_stmt(self, meta, children):
        return ast.Assert(expr=children[0], pos=self._pos(meta))

    def inline_call(self, meta, children):
        return ast.InlineCall(name=str(children[0]), args=list(children[1:]), pos=self._pos(meta))

    def c_code_stmt(self, meta, children):
        return children[0]

    def expr_stmt(self, meta, children):
        return ast.ExprStmt(expr=children[0], pos=self._pos(meta))

    # ------------------------------------------------------------------ expressions
    def binop(self, meta, children):
        left, op, right = children
        return ast.BinOp(op=str(op), left=left, right=right, pos=self._pos(meta))

    def unop(self, meta, children):
        op, operand = children
        if op == "-" and isinstance(operand, ast.Const):
            return ast.Const(value=-operand.value, pos=self._pos(meta))
        return ast.UnOp(op=str(op), operand=operand, pos=self._pos(meta))

    def cond_expr(self, meta, children):
        return ast.CondExpr(cond=children[0], then=children[1], other=children[2], pos=self._pos(meta))

    def const(self, meta, children):
        return ast.Const(value=int(children[0]), pos=self._pos(meta))

    def char_const(self, meta, children):
        text = children[0].value[1:-1]
        value = ord(text.encode().decode("unicode_escape")) if text.startswith("\\") else ord(text)
        return ast.Const(value=value, pos=self._pos(meta))

    def chan_fn(self, meta, children):
        return ast.ChanFn(fn=str(children[0]), chan=children[1], pos=self._pos(meta))

    def enabled(self, meta, children):
        return ast.Builtin(fn="enabled", args=list(children), pos=self._pos(meta))

    def pc_value(self, meta, children):
        return ast.Builtin(fn="pc_value", args=list(children), pos=self._pos(meta))

    def get_priority(self, meta, children):
        return ast.Builtin(fn="get_priority", args=list(children), pos=self._pos(meta))

    def set_priority(self, meta, children):
        return ast.Builtin(fn="set_priority", args=list(children), pos=self._pos(meta))

    def run(self, meta, children):
        name = str(children[0])
        args = [c for c in children[1:] if isinstance(c, ast.Node)]
        return ast.Run(proctype=name, args=args, priority=_tagged(children, "priority"),
                       pos=self._pos(meta))

    def poll(self, meta, children):
        return ast.Poll(chan=children[0], args=children[2], random=children[1].type == "QUERYQUERY",
                        pos=self._pos(meta))

    def remote_label(self, meta, children):
        return ast.RemoteLabel(proctype=str(children[0]), index=children[1], label=str(children[2]),
                               pos=self._pos(meta))

    def remote_label_bare(self, meta, children):
        return ast.RemoteLabel(proctype=str(children[0]), index=None, label=str(children[1]),
                               pos=self._pos(meta))

    def remote_var(self, meta, children):
        return ast.RemoteVar(proctype=str(children[0]), index=children[1], var=children[2],
                             pos=self._pos(meta))

    def remote_var_bare(self, meta, children):
        return ast.RemoteVar(proctype=str(children[0]), index=None, var=children[1], pos=self._pos(meta))

    def c_expr(self, meta, children):
        return self._c_block(children[0], meta)

    def varref(self, meta, children):
        return ast.VarRef(name=str(children[0]), index=_tagged(children, "index"),
                          field=_tagged(children, "field"), pos=self._pos(meta))

    def index(self, meta, children):
        return _Tag("index", children[0])

    def field(self, meta, children):
        return _Tag("field", children[0])

    # ------------------------------------------------------------------ LTL
    def ltl_formula(self, meta, children):
        return children[0]

    def _ltl_binary(op):
        def build(self, meta, children):
            operands = [c for c in children if not isinstance(c, Token)]
            return ast.LtlBinary(op=op, left=operands[0], right=operands[1], pos=self._pos(meta))
        return build

    def _ltl_unary(op):
        def build(self, meta, children):
            operand = [c for c in children if not isinstance(c, Token)][0]
            return ast.LtlUnary(op=op, arg=operand, pos=self._pos(meta))
        return build

    ltl_equiv = _ltl_binary("<->")
    ltl_implies = _ltl_binary("->")
    ltl_or = _ltl_binary("||")
    ltl_and = _ltl_binary("&&")
    ltl_until = _ltl_binary("U")
    ltl_weakuntil = _ltl_binary("W")
    ltl_release = _ltl_binary("V")
    ltl_strongrelease = _ltl_binary("stronger")
    ltl_always = _ltl_unary("[]")
    ltl_eventually = _ltl_unary("<>")
    ltl_next = _ltl_unary("X")
    ltl_not = _ltl_unary("!")
    del _ltl_binary, _ltl_unary
