"""Printing the AST back to Promela.

The output is meant for spin and for our own parser, not for beauty: every binary expression is
parenthesised, so that printing and reparsing gives an equal AST without a precedence table,
and the printed model gives spin the same state space as the original.
"""

from __future__ import annotations

from . import ast

_INDENT = "    "


def print_spec(spec: ast.Spec) -> str:
    """Promela text for a whole specification."""
    return "\n\n".join(_unit(unit) for unit in spec.units) + "\n"


def print_expr(expr) -> str:
    """Promela text for one expression."""
    return _expr(expr)


def print_stmt(stmt, level: int = 0) -> str:
    """Promela text for one statement, indented to ``level``."""
    return _stmt(stmt, level)


def print_formula(formula) -> str:
    """Promela text for an ltl formula (the part between the braces)."""
    return _ltl(formula)


def print_unit(unit) -> str:
    """Promela text for one top-level unit (a proctype, an ltl formula, a declaration ...)."""
    return _unit(unit)


# --------------------------------------------------------------------------- top level

def _unit(unit) -> str:
    if isinstance(unit, ast.Proctype):
        head = ""
        if unit.active is not None:
            head = f"active [{_expr(unit.active)}] "
        keyword = "D_proctype" if unit.deterministic else "proctype"
        params = "; ".join(_decl(p) for p in unit.params)
        text = f"{head}{keyword} {unit.name}({params})"
        if unit.priority is not None:
            text += f" priority {_expr(unit.priority)}"
        if unit.provided is not None:
            text += f" provided ({_expr(unit.provided)})"
        return text + " " + _body(unit.body, 0)
    if isinstance(unit, ast.Init):
        prio = f" priority {_expr(unit.priority)}" if unit.priority is not None else ""
        return f"init{prio} " + _body(unit.body, 0)
    if isinstance(unit, ast.Never):
        name = f"{unit.name} " if unit.name else ""
        return f"never {name}" + _body(unit.body, 0)
    if isinstance(unit, ast.Trace):
        return ("notrace " if unit.negated else "trace ") + _body(unit.body, 0)
    if isinstance(unit, ast.Ltl):
        name = f" {unit.name}" if unit.name else ""
        formula = _ltl(unit.formula) if unit.formula is not None else unit.text
        return f"ltl{name} {{ {formula} }}"
    if isinstance(unit, ast.TypeDef):
        fields = "".join(f"{_INDENT}{_decl(f)};\n" for f in unit.fields)
        return f"typedef {unit.name} {{\n{fields}}}"
    if isinstance(unit, ast.MtypeDecl):
        sub = f":{unit.subtype}" if unit.subtype else ""
        return f"mtype{sub} = {{ {', '.join(unit.names)} }}"
    if isinstance(unit, ast.Decl):
        return _decl(unit) + ";"
    if isinstance(unit, ast.Inline):
        return f"inline {unit.name}({', '.join(unit.params)}) " + _body(unit.body, 0)
    if isinstance(unit, ast.CCode):
        return _c_code(unit)
    if isinstance(unit, ast.CState):
        return f"{unit.kind} " + " ".join(unit.args)
    raise TypeError(f"cannot print unit {type(unit).__name__}")


def _c_code(node) -> str:
    guard = f" [{node.guard}]" if node.guard is not None else ""
    return f"{node.kind}{guard} {{{node.text}}}"


def _body(seq, level: int) -> str:
    return "{\n" + _sequence(seq, level + 1) + _INDENT * level + "}"


def _sequence(seq, level: int) -> str:
    if not seq.steps:
        return _INDENT * level + "skip\n"
    lines = [_stmt(step, level) for step in seq.steps]
    return ";\n".join(lines) + "\n"


def _option(seq, level: int) -> str:
    """An option's steps, the guard followed by `->` as people write it."""
    if len(seq.steps) <= 1:
        return _sequence(seq, level).lstrip()
    guard = _stmt(seq.steps[0], level).lstrip()
    rest = ";\n".join(_stmt(step, level) for step in seq.steps[1:])
    return f"{guard} ->\n{rest}\n"


# --------------------------------------------------------------------------- declarations

def _typename(t) -> str:
    if isinstance(t, ast.RefType):
        return f"ref {t.proctype}"
    return f"mtype:{t.subtype}" if t.subtype else t.name


def _decl(decl) -> str:
    vis = f"{decl.visibility} " if decl.visibility else ""
    return f"{vis}{_typename(decl.type)} " + ", ".join(_var(v) for v in decl.vars)


def _var(var) -> str:
    text = var.name
    if var.size is not None:
        text += f"[{_expr(var.size)}]"
    if var.bits is not None:
        text += f" : {_expr(var.bits)}"
    if var.init is not None:
        if isinstance(var.init, ast.ChanInit):
            fields = ", ".join(_typename(f) for f in var.init.fields)
            text += f" = [{_expr(var.init.capacity)}] of {{ {fields} }}"
        else:
            text += f" = {_expr(var.init)}"
    return text


# --------------------------------------------------------------------------- statements

def _stmt(stmt, level: int) -> str:
    pad = _INDENT * level
    if isinstance(stmt, ast.Labeled):
        return f"{pad}{stmt.label}:\n" + _stmt(stmt.stmt, level)
    if isinstance(stmt, ast.Unless):
        # `unless` stays on the line of the statement's end: after `od` or `fi` a newline would
        # be an implied semicolon to spin.
        return _stmt(stmt.stmt, level) + " unless " + _stmt(stmt.escape, level).lstrip()
    if isinstance(stmt, (ast.If, ast.Do)):
        open_, close = ("if", "fi") if isinstance(stmt, ast.If) else ("do", "od")
        text = f"{pad}{open_}\n"
        for option in stmt.options:
            text += f"{pad}{_INDENT}:: " + _option(option, level + 2)
        return text + f"{pad}{close}"
    if isinstance(stmt, (ast.Atomic, ast.DStep, ast.Block)):
        keyword = {ast.Atomic: "atomic ", ast.DStep: "d_step ", ast.Block: ""}[type(stmt)]
        return f"{pad}{keyword}" + _body(stmt.body, level)
    if isinstance(stmt, ast.ForRange):
        return (f"{pad}for ({_expr(stmt.var)} : {_expr(stmt.lo)} .. {_expr(stmt.hi)}) "
                + _body(stmt.body, level))
    if isinstance(stmt, ast.ForIn):
        return f"{pad}for ({_expr(stmt.var)} in {_expr(stmt.array)}) " + _body(stmt.body, level)
    return pad + _simple(stmt)


def _simple(stmt) -> str:
    if isinstance(stmt, ast.Assign):
        return f"{_expr(stmt.target)} = {_expr(stmt.value)}"
    if isinstance(stmt, ast.IncDec):
        return f"{_expr(stmt.target)}{stmt.op}"
    if isinstance(stmt, ast.Send):
        op = "!!" if stmt.sorted else "!"
        return f"{_expr(stmt.chan)}{op}" + ", ".join(_expr(a) for a in stmt.args)
    if isinstance(stmt, ast.Receive):
        op = "??" if stmt.random else "?"
        args = ", ".join(_expr(a) for a in stmt.args)
        return f"{_expr(stmt.chan)}{op}<{args}>" if stmt.keep else f"{_expr(stmt.chan)}{op}{args}"
    if isinstance(stmt, ast.Select):
        return f"select ({_expr(stmt.var)} : {_expr(stmt.lo)} .. {_expr(stmt.hi)})"
    if isinstance(stmt, ast.Break):
        return "break"
    if isinstance(stmt, ast.Goto):
        return f"goto {stmt.label}"
    if isinstance(stmt, ast.Else):
        return "else"
    if isinstance(stmt, ast.Skip):
        return "skip"
    if isinstance(stmt, ast.Printf):
        return "printf(" + ", ".join([stmt.fmt] + [_expr(a) for a in stmt.args]) + ")"
    if isinstance(stmt, ast.Printm):
        return f"printm({_expr(stmt.arg)})"
    if isinstance(stmt, ast.Assert):
        return f"assert({_expr(stmt.expr)})"
    if isinstance(stmt, ast.InlineCall):
        return f"{stmt.name}(" + ", ".join(_expr(a) for a in stmt.args) + ")"
    if isinstance(stmt, ast.ExprStmt):
        return _expr(stmt.expr)
    if isinstance(stmt, ast.XrXs):
        return f"{stmt.kind} " + ", ".join(_expr(v) for v in stmt.vars)
    if isinstance(stmt, ast.Decl):
        return _decl(stmt)
    if isinstance(stmt, ast.CCode):
        return _c_code(stmt)
    raise TypeError(f"cannot print statement {type(stmt).__name__}")


# --------------------------------------------------------------------------- expressions

def _expr(e) -> str:
    if isinstance(e, ast.Const):
        return str(e.value)
    if isinstance(e, ast.VarRef):
        text = e.name
        if e.index is not None:
            text += f"[{_expr(e.index)}]"
        if e.field is not None:
            text += "." + _expr(e.field)
        return text
    if isinstance(e, ast.BinOp):
        return f"({_expr(e.left)} {e.op} {_expr(e.right)})"
    if isinstance(e, ast.UnOp):
        # Parentheses keep `!(!a)` from reading as the `!!` of a sorted send, and `-(-x)` from
        # reading as `--`.
        return f"{e.op}({_expr(e.operand)})"
    if isinstance(e, ast.CondExpr):
        return f"({_expr(e.cond)} -> {_expr(e.then)} : {_expr(e.other)})"
    if isinstance(e, ast.ChanFn):
        return f"{e.fn}({_expr(e.chan)})"
    if isinstance(e, ast.Builtin):
        return f"{e.fn}(" + ", ".join(_expr(a) for a in e.args) + ")"
    if isinstance(e, ast.Run):
        text = f"run {e.proctype}(" + ", ".join(_expr(a) for a in e.args) + ")"
        if e.priority is not None:
            text += f" priority {_expr(e.priority)}"
        return text
    if isinstance(e, ast.Poll):
        op = "??" if e.random else "?"
        return f"{_expr(e.chan)}{op}[" + ", ".join(_expr(a) for a in e.args) + "]"
    if isinstance(e, ast.RemoteLabel):
        index = f"[{_expr(e.index)}]" if e.index is not None else ""
        return f"{e.proctype}{index}@{e.label}"
    if isinstance(e, ast.RemoteVar):
        index = f"[{_expr(e.index)}]" if e.index is not None else ""
        return f"{e.proctype}{index}:{_expr(e.var)}"
    if isinstance(e, ast.CExpr):
        return _c_code(ast.CCode(kind="c_expr", guard=e.guard, text=e.text))
    if isinstance(e, ast.Eval):
        return f"eval({_expr(e.expr)})"
    if isinstance(e, ast.PublicAccess):
        return f"{e.proctype}[{_expr(e.ref)}].{_expr(e.var)}"
    if isinstance(e, ast.AnyRef):
        return f"anyRef({e.proctype})"
    if isinstance(e, ast.Lid):
        return "_lid"
    if isinstance(e, ast.UndefRef):
        return "_undef_ref"
    raise TypeError(f"cannot print expression {type(e).__name__}")


def _ltl(f) -> str:
    if isinstance(f, ast.LtlUnary):
        return f"{f.op} ({_ltl(f.arg)})" if f.op in ("X",) else f"{f.op}({_ltl(f.arg)})"
    if isinstance(f, ast.LtlBinary):
        return f"({_ltl(f.left)} {f.op} {_ltl(f.right)})"
    return _expr(f)
