"""Building the AST of ast.py from the parsers of parser.py: the lark Transformer ``AstBuilder``.

The LALR parser calls the builder's callbacks as it reduces (lark's ``transformer=`` option);
for the Earley-parsed LTL formulas, ``transform`` calls them on the parse tree.  Each value
goes up the parse as a ``Built``, with the position where its text starts.
"""

from __future__ import annotations

import re
from typing import cast

from lark import Token, Transformer

from ..errors import SourcePos
from . import ast
from .lexer import spin_expands_select
from .preprocess import Preprocessed


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


class Built:
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
            if type(child) is Built:
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
        return Built(build(self, start, children), start)

    callback.__name__ = build.__name__
    callback.__doc__ = build.__doc__
    return callback


def _on_built(method):
    """Marks a rule callback that takes the raw children itself (``Built`` values included)."""
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
# the left.  (The grammar gives operands and operators as flat lists: AstBuilder.expr.)
_BINARY_PRECEDENCE = {op: level for level, ops in enumerate((
    ("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
    ("<<", ">>"), ("+", "-"), ("*", "/", "%"),
)) for op in ops}


def _nest_binary(raw: list, i: int, loosest: int, pos) -> tuple[Built, int]:
    """The operation that starts at operand ``raw[i]`` and takes the operators from
    precedence ``loosest`` up (precedence climbing), and the index after it.  A BinOp starts
    where its left operand does, parentheses included, as with a grammar rule per level."""
    left = raw[i]
    i += 1
    while i < len(raw) and _BINARY_PRECEDENCE[raw[i].value] >= loosest:
        op = raw[i]
        right, i = _nest_binary(raw, i + 1, _BINARY_PRECEDENCE[op.value] + 1, pos)
        node = ast.BinOp(op=op.value, left=left.value, right=right.value, pos=pos(left.start))
        left = Built(node, left.start)
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
class AstBuilder(Transformer):
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
        # (A constant the parser has folded holds an int: the test only narrows its type.)
        if op == "-" and isinstance(operand, ast.Const) and isinstance(operand.value, int):
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
        # The nodes are the arguments, expressions (the priority comes as a _Tag).
        args = cast("list[ast.Expr]", [c for c in children[1:] if isinstance(c, ast.Node)])
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
