"""The checks of ``torchdoctor cluster``, judging what every rank handed to rank 0 (:mod:`cluster_judge`)."""

from torchdoctor.plugin import Check, Judge, Probe, judge_at

EXCHANGE_PROBE = Probe("cluster.exchange", "torchdoctor.checks.ddp.exchange_probe:probe")


def _judge(name: str) -> Judge:
    return judge_at(f"torchdoctor.checks.ddp.cluster_judge:{name}")


EXCHANGE = Check(
    "cluster.exchange", "Exchange between ranks", (EXCHANGE_PROBE,), _judge("judge_exchange"), order=10
)
VERSIONS = Check(
    "cluster.versions", "Versions across nodes", (EXCHANGE_PROBE,), _judge("judge_versions"), order=20
)
GPUS = Check("cluster.gpus", "GPUs across nodes", (EXCHANGE_PROBE,), _judge("judge_gpus"), order=30)
COLLECTIVE = Check(
    "cluster.collective", "Collective across nodes", (EXCHANGE_PROBE,), _judge("judge_collective"), order=40
)
