"""A small POSIX sh parser: every simple command a command line would run, and what makes it opaque.

``parse_command`` is pure and never raises. It finds the simple commands at the top level, in
pipelines and lists, inside ``$(…)``, backticks, ``<(…)``, subshells, ``{ …; }`` groups, compound
commands (``if``, ``for``, ``while``, ``case``, functions), the script of ``sh -c``/``eval``
(parsed again, depth-bounded) and the command of ``find -exec … ;``, and looks through wrappers
(``env``, ``sudo``, ``xargs``…, see ``programs``) to the program that really runs. It does not
expand anything: a ``$x`` stays ``$x`` and the ``expansions`` flag says the real words are unknown.

Quoting follows POSIX sh (see ``lexer``); bash additions that change what runs are flagged
rather than modelled precisely (``$'…'``, brace expansion, ``[[ … ]]``). Callers deciding safety
must treat ``error`` as unsafe: a partial parse then only lists what was read before the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quorum.infrastructure.tools.shell.lexer import REDIRECTIONS, ShellSyntaxError, tokenize
from quorum.infrastructure.tools.shell.programs import find_exec_commands, resolve_program, shell_script
from quorum.infrastructure.tools.shell.tokens import Token


@dataclass(frozen=True)
class Redirection:
    """One redirection of a simple command.

    Attributes:
        operator: ``>``, ``>>``, ``<``, ``<<``, ``<<-``, ``<<<``, ``>&``, ``<&``, ``&>``, ``&>>``, ``>|``, ``<>``.
        fd: The file descriptor number written right before the operator (``2`` in ``2>&1``), if any.
        target: The target word after quote removal; ``''`` for here-documents.
    """

    operator: str
    fd: int | None
    target: str


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: what one ``fork``/``exec`` (or builtin) of the shell would run.

    Attributes:
        words: The words after quote removal, without leading ``NAME=value`` assignments.
        assignments: The leading ``NAME=value`` words.
        redirections: Its redirections, in order.
        program: The program that really runs: quotes removed, directory dropped (``/bin/rm`` → ``rm``),
            wrappers looked through (``sudo -u x env A=1 rm`` → ``rm``); ``''`` when there is none.
        argv: The words from the normalized program on (program first): what really runs.
        nested: Found inside a substitution, subshell, group, ``sh -c`` script or ``find -exec``.
    """

    words: tuple[str, ...]
    assignments: tuple[str, ...]
    redirections: tuple[Redirection, ...]
    program: str
    argv: tuple[str, ...]
    nested: bool


@dataclass(frozen=True)
class ParsedCommand:
    """Everything a command line would run, and flags for what cannot be known before it runs.

    Attributes:
        commands: Every simple command, in the order met (a substitution's before the command holding it).
        expansions: A ``$`` outside single quotes (parameters, arithmetic, substitutions, ``$'…'``).
        substitutions: ``$(…)``, backticks, ``<(…)`` or ``>(…)``, including in here-documents.
        grouping: A ``( … )`` subshell or ``{ …; }`` group.
        globs: An unquoted ``*``, ``?`` or ``[`` in a word the shell would expand as a pathname.
        error: Why the text is not a well-formed command (unbalanced quotes, parentheses…), or None.
        compound: ``if``/``while``/``until``/``for``/``select``/``case``, ``[[``, ``coproc`` or a function.
        braces: Bash brace expansion (``{a,b}``, ``{1..3}``): words the shell would multiply.
        glob_patterns: Each globbing word as a pattern, quoted special characters backslash-escaped.
    """

    commands: tuple[SimpleCommand, ...]
    expansions: bool
    substitutions: bool
    grouping: bool
    globs: bool
    error: str | None
    compound: bool = False
    braces: bool = False
    glob_patterns: tuple[str, ...] = ()


def parse_command(text: str) -> ParsedCommand:
    """Parse ``text`` as ``sh -c`` would; never raises (problems are reported in ``error``)."""
    state = _State()
    try:
        _parse(text, depth=0, nested=False, state=state)
    except (ShellSyntaxError, RecursionError) as error:
        state.error = str(error) or "the command is nested too deeply"
    return ParsedCommand(
        commands=tuple(state.commands),
        expansions=state.expansions,
        substitutions=state.substitutions,
        grouping=state.grouping,
        globs=bool(state.glob_patterns),
        error=state.error,
        compound=state.compound,
        braces=state.braces,
        glob_patterns=tuple(state.glob_patterns),
    )


@dataclass
class _State:
    """What the parsers of a command line and all its nested scripts have found so far."""

    commands: list[SimpleCommand] = field(default_factory=list)
    glob_patterns: list[str] = field(default_factory=list)
    expansions: bool = False
    substitutions: bool = False
    grouping: bool = False
    compound: bool = False
    braces: bool = False
    error: str | None = None


def _parse(text: str, depth: int, nested: bool, state: _State) -> None:
    _Parser(tokenize(text, depth), depth, nested, state).run()


_SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_PREFIX_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "fi", "done", "coproc"})
_HEREDOCS = frozenset({"<<", "<<-"})
_CLOSERS = {"}": "{", "esac": "case"}


class _Parser:
    """Walks one token list; ``stack`` holds the open ``(``, ``{``, and ``case`` constructs."""

    def __init__(self, tokens: tuple[Token, ...], depth: int, nested: bool, state: _State) -> None:
        self.tokens, self.i = tokens, 0
        self.depth, self.nested, self.state = depth, nested, state
        self.stack: list[str] = []
        self.words: list[str] = []
        self.assignments: list[str] = []
        self.redirections: list[Redirection] = []

    def run(self) -> None:
        while self.i < len(self.tokens):
            token = self._take()
            if self.stack and self.stack[-1] == "pattern":
                self._pattern(token)
            elif token.kind == "newline" or (token.kind == "operator" and token.text in _SEPARATORS):
                self._finish()
            elif token.kind == "operator":
                self._operator(token)
            elif self._empty() and not token.quoted and self._keyword(token.text):
                continue
            elif token.assignment and not self.words:
                self.assignments.append(token.text)
                self._note(token)
            else:
                self.words.append(token.text)
                self._note(token)
        self._finish()
        if self.stack:
            raise ShellSyntaxError(f"unclosed {self.stack[-1]!r}")

    def _take(self) -> Token:
        self.i += 1
        return self.tokens[self.i - 1]

    def _peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _empty(self) -> bool:
        return not (self.words or self.assignments or self.redirections)

    def _operator(self, token: Token) -> None:
        if token.text in REDIRECTIONS:
            target = self._peek()
            if target is None or target.kind != "word":
                raise ShellSyntaxError(f"{token.text} without a target")
            self._take()
            self._note(target)
            text = "" if token.text in _HEREDOCS else target.text
            self.redirections.append(Redirection(token.text, token.fd, text))
        elif token.text == "(" and self._empty():
            self.state.grouping = True
            self.stack.append("(")
        elif token.text == "(" and len(self.words) == 1 and not self.assignments and self._peek_is(")"):
            self._take()  # NAME() a function definition; its body is the compound command that follows
            self.state.compound = True
            self.words.clear()
        elif token.text == ")" and self.stack[-1:] == ["("]:
            self._finish()
            self.stack.pop()
        elif token.text in _CASE_ENDS and self.stack[-1:] == ["case"]:
            self._finish()
            self.stack[-1] = "pattern"
        else:
            raise ShellSyntaxError(f"unexpected {token.text!r}")

    def _peek_is(self, operator: str) -> bool:
        token = self._peek()
        return token is not None and token.kind == "operator" and token.text == operator

    def _keyword(self, word: str) -> bool:
        """Handle a reserved word at a command start; False when ``word`` is not one."""
        if word == "{":
            self.state.grouping = True
            self.stack.append("{")
        elif self.stack and _CLOSERS.get(word) == self.stack[-1]:
            self.stack.pop()
        elif word == "!":
            pass
        elif word in _PREFIX_KEYWORDS:
            self.state.compound = True
        elif word in ("for", "select"):
            self.state.compound = True
            self._skip_words(1)
            if (token := self._peek()) is not None and token.kind == "word" and token.text == "in":
                self._skip_words(len(self.tokens))
        elif word == "case":
            self.state.compound = True
            self._skip_words(2)  # the subject and "in"
            self.stack.append("pattern")
        elif word == "function":
            self.state.compound = True
            self._skip_words(1)
            if self._peek_is("("):
                self._take()
                if not self._peek_is(")"):
                    raise ShellSyntaxError("function NAME( without )")
                self._take()
        elif word == "[[":
            self.state.compound = True
            return False  # kept as a command named [[ so its words are still looked at
        else:
            return False
        return True

    def _skip_words(self, limit: int) -> None:
        """Consume up to ``limit`` word tokens (noting their expansions), stopping at anything else."""
        while limit and (token := self._peek()) is not None and token.kind == "word":
            self._take()
            self._note(token)
            limit -= 1

    def _pattern(self, token: Token) -> None:
        """A token of a ``case`` pattern list, up to the ``)`` that starts its commands."""
        if token.kind == "word" and token.text == "esac" and not token.quoted:
            self.stack.pop()
        elif token.kind == "word":
            self._note(token, pathname=False)  # case patterns match the subject, not file names
        elif token.kind == "operator" and token.text == ")":
            self.stack[-1] = "case"
        elif token.kind == "operator" and token.text not in ("(", "|"):
            raise ShellSyntaxError(f"unexpected {token.text!r} in a case pattern")

    def _note(self, token: Token, pathname: bool = True) -> None:
        """Record a word's flags and parse the commands inside its substitutions."""
        state = self.state
        state.expansions |= token.expansion
        state.braces |= token.braces
        if token.pattern is not None and pathname:
            state.glob_patterns.append(token.pattern)
        for tokens in token.substitutions:
            state.substitutions = True
            _Parser(tokens, self.depth + 1, True, state).run()

    def _finish(self) -> None:
        if not self._empty():
            nested = self.nested or "(" in self.stack or "{" in self.stack
            self._emit(tuple(self.words), tuple(self.assignments), tuple(self.redirections), nested)
        self.words, self.assignments, self.redirections = [], [], []

    def _emit(
        self, words: tuple[str, ...], assignments: tuple[str, ...], redirections: tuple[Redirection, ...], nested: bool
    ) -> None:
        argv = resolve_program(words)
        program = argv[0] if argv else ""
        self.state.commands.append(SimpleCommand(words, assignments, redirections, program, argv, nested))
        script = shell_script(argv)
        if script is not None:
            _parse(script, self.depth + 1, nested=True, state=self.state)
        for inner in find_exec_commands(argv):
            self._emit(inner, (), (), nested=True)


__all__ = ["ParsedCommand", "Redirection", "SimpleCommand", "parse_command"]
