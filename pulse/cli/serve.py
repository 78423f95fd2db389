"""`pulse serve` (= `python -m pulse.cli.serve`): run the MCP gateway (configs/serve.yaml).

    pulse serve user_id=ada memory.root=$HOME/.pulse/memory/ada \
        +upstreams.retail.command=python \
        '+upstreams.retail.args=[-m,eval.real.tau2_retail.mcp_server,--db,DB]'
    pulse serve transport=http port=8765 ...        # streamable HTTP at http://127.0.0.1:8765/mcp
    pulse serve -cd ~/.pulse -cn gateway            # a YAML file (~/.pulse/gateway.yaml) whose
                                                    # defaults are [serve, _self_]: no quoting

Logs go to stderr (stdout carries MCP in stdio mode). Exit status 2 with one line for a config error
or an upstream that cannot start.
"""

from __future__ import annotations

import logging
import sys

from pulse.cli.support import CONFIG_DIR, known_errors, report_and_exit


def _run(cfg) -> None:
    import anyio

    from pulse.config.schema import to_typed
    from pulse.serve.config import ServeConfig, check
    from pulse.serve.gateway import GatewayError, serve

    typed = check(to_typed(cfg, ServeConfig))
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(name)s: %(message)s")
    for name in ("mcp", "httpx", "uvicorn"):
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        anyio.run(serve, typed)
    except BaseExceptionGroup as eg:  # the task group wraps a start failure (upstream, memory, policy)
        leaf = eg
        while isinstance(leaf, BaseExceptionGroup) and leaf.exceptions:
            leaf = leaf.exceptions[0]
        if isinstance(leaf, (GatewayError, *known_errors())):
            report_and_exit("serve", leaf)
        raise
    except KeyboardInterrupt:
        pass


def main() -> None:
    """`pulse serve [overrides...]` (the module docstring): run the MCP gateway until it is stopped.

    Reads hydra overrides of configs/serve.yaml from `sys.argv` (checked before hydra sees them) and
    serves over stdio or streamable HTTP (`transport`); Ctrl-C ends it quietly. Logs go to stderr.

    Raises:
        SystemExit: status 2 with one line on stderr for an unknown or unreadable override, a bad
            config value, an upstream that cannot start (`GatewayError`) or a memory or policy that
            cannot load (`pulse.cli.support.known_errors`).
    """
    # hydra_entry's shape without its library quieting: that imports transformers and datasets (~1 s),
    # which a gateway never loads unless its policy is a local checkpoint
    import os

    import hydra

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from pulse.config.schema import ConfigError
    from pulse.serve.config import check_overrides

    try:  # a typo or an unreadable override: one line, exit 2 (not hydra's own message, exit 1)
        check_overrides(sys.argv[1:])
    except ConfigError as e:
        report_and_exit("serve", e)

    @hydra.main(config_path=str(CONFIG_DIR), config_name="serve", version_base="1.3")
    def _main(cfg) -> None:
        try:
            _run(cfg)
        except known_errors() as e:
            report_and_exit("serve", e)

    _main()


if __name__ == "__main__":
    main()
