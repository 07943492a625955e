"""The ``evalfmt`` command line: a thin click group whose subcommands load lazily.

Each subcommand lives in ``evalfmt/commands/<module>.py`` as ``command`` (a click command) and is
imported only when it runs, so ``evalfmt --version`` and the pre-commit hooks start fast.
Errors print as one line ``evalfmt: <message>`` on stderr; a traceback only with ``--debug``.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from . import __version__, program
from .errors import EvalfmtError, UsageError, one_line

#: subcommand -> (module under evalfmt.commands, one-line help shown by ``evalfmt --help``)
COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("inspect", "Print what was read from eval assets (text, or the IR as JSON)."),
    "validate": ("validate", "Check eval files for structural errors (EV1xx); fast, for pre-commit."),
    "convert": ("convert", "Convert eval assets to another format, reporting anything lost."),
    "transpile": ("transpile", "Route skill-trigger tests into per-skill evals.json files."),
    "lint": ("lint", "Lint eval assets and skills (structure, eval quality, triggers, hygiene)."),
    "rules": ("rules", "List the lint rules, or explain one."),
    "schema": ("schema", "Write the JSON Schemas of the eval formats."),
    "score": ("score", "Score one recorded session against a case's checks."),
    "triggers": ("triggers", "Score trigger prompts against recorded selections (recall/precision)."),
    "compare": ("compare", "Compare recorded sessions of two or more arms and give the verdict."),
    "run": ("run", "Run an agent on a skill's cases in sandboxes, score and compare the arms."),
    "merge": ("merge", "Combine the run folders of a run's shards (run --shard I/N) into one run."),
    "report": ("report", "Render receipts as a self-contained HTML page or a Markdown summary."),
    "lsp": ("lsp", "Run the language server (stdio) for editors: lint as you type, hover, quick fixes."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _available(name)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS or not _available(name):
            return None
        module = importlib.import_module(f"evalfmt.commands.{COMMANDS[name][0]}")
        return module.command

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib  # 1 ms to import (python -X importtime): only for a mistyped command

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            ctx.fail(f"no such command '{name}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except UsageError as exc:  # from below the CLI: shown as click's own, with the command's --help hint
            name = ctx.invoked_subcommand
            cmd = self.get_command(ctx, name) if name else None
            sub = click.Context(cmd, info_name=name, parent=ctx) if cmd is not None else ctx
            raise click.UsageError(str(exc), ctx=sub) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(name: str) -> bool:
    here = os.path.join(os.path.dirname(__file__), "commands", COMMANDS[name][0] + ".py")
    return os.path.exists(here)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", "-V", prog_name="evalfmt", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show Python tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """evalfmt reads the eval assets of agent skills (terum, AgentV EVAL.yaml, skill-creator
    evals.json, skillgym, promptfoo) into one representation, converts between them, routes
    skill-trigger tests into per-skill evals.json, lints them, and scores recorded sessions.

    PATH arguments accept a file, a skill folder (holding SKILL.md), an evals/ folder, or any
    folder (searched recursively). Exit codes: 0 clean, 1 findings, 2 usage or internal error.
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def main(argv: list[str] | None = None) -> None:
    """Run the CLI, turning every failure into one line and an exit code."""
    def say(message: str) -> None:  # one line, whatever the user strings in it hold
        click.echo(f"evalfmt: {one_line(message)}", err=True)

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        rv = cli.main(args=args, prog_name="evalfmt", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except click.exceptions.Abort:
        say("aborted")
        code = 130
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `evalfmt`: its help, as ruff prints it
        click.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message(), err=True)
        code = 2
    except click.UsageError as exc:
        hint = ""
        if exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        say(f"{exc.format_message()}{hint}")
        code = 2
    except click.ClickException as exc:
        say(exc.format_message())
        code = exc.exit_code
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except EvalfmtError as exc:
        if debug:
            raise
        say(str(exc))
        code = exc.exit_code
    except KeyboardInterrupt:
        say("interrupted")
        code = 130
    except BrokenPipeError:
        code = 0
        try:
            sys.stdout = None
        except Exception:  # pragma: no cover
            pass
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        if debug:
            raise
        say(f"internal error: {type(exc).__name__}: {exc} (run with --debug for details)")
        code = 2
    sys.exit(code)


def console() -> None:
    """The ``evalfmt`` command (and ``python -m evalfmt``): :func:`main` in a process of evalfmt's own,
    which may take process-wide measures a library caller's process never gets (:mod:`evalfmt.program`)."""
    program.claim()
    main()


if __name__ == "__main__":  # pragma: no cover
    console()
