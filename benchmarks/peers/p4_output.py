"""What both peer scripts write: the result as JSON to ``out``, or a summary on stdout.
(The scripts run in the peers' own venv and import it from their directory.)"""
import json


def emit(res: dict, out: str | None) -> None:
    """``res`` ({"engine", ..., "centres": [at 1 s, at 2 s]}) to the file ``out``, or
    everything but the centres and the last rod's tip on stdout."""
    if out:
        with open(out, "w") as f:
            json.dump(res, f)
    else:
        centres = res["centres"]
        print(json.dumps({k: v for k, v in res.items() if k != "centres"}))
        print("tip", centres[-1][-1] if centres else None)
