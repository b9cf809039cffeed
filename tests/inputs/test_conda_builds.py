"""What pytorch's conda build strings say of their CUDA, on the strings real threads and files quote."""

from __future__ import annotations

from torchdoctor.inputs import conda_builds


def test_the_build_strings_of_each_channel_say_their_cuda_or_cpu() -> None:
    cases = {
        # an environment.yml pin quoted in lioryariv/idr's environment file and docs (pytorch channel)
        "py3.7_cuda10.0.130_cudnn7.6.2_0": "10.0",
        # meta-pytorch/data#315 (conda list: the pytorch channel's CUDA and CPU builds)
        "py3.8_cuda11.3_cudnn8.2.0_0": "11.3",
        "py3.8_cpu_0": "cpu",
        # pytorch/pytorch#32369 (Anaconda's defaults channel)
        "cuda100py37h53c1284_0": "10.0",
        # mamba-org/mamba#1349 and MouseLand/cellpose#1324 (conda-forge's CPU builds)
        "cpu_py310h2272b30_0": "cpu",
        "cpu_generic_py311_h5eef2c6_16": "cpu",
        # MouseLand/cellpose#1324 (the pytorch channel, cuDNN 9)
        "py3.11_cuda11.8_cudnn9.1.0_0": "11.8",
    }
    for build, cuda in cases.items():
        assert conda_builds.cuda_of_build(build) == cuda, build
    # a build string that says neither is not read: a nightly's (pytorch/vision#6087)
    assert conda_builds.cuda_of_build("py3.8_0") is None


def test_packages_are_read_as_environment_files_and_conda_list_write_them() -> None:
    text = (
        # meta-pytorch/data#315
        "❯ conda list | grep pytorch\ncpuonly                   2.0                           0    pytorch\n"
        "pytorch                   1.11.0              py3.8_cpu_0    pytorch\n"
        "pytorch-mutex             1.0                         cpu    pytorch\n"
        # pytorch/pytorch#69202
        "(you could check it in you package list, it is pytorch=1.9.0=py3.8_cpu_0).\n"
        # a pin of an environment file
        "      - pytorch==1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0\n"
    )
    assert conda_builds.named(text) == [
        conda_builds.CondaBuild("pytorch 1.11.0 py3.8_cpu_0", "1.11.0", "cpu"),
        conda_builds.CondaBuild("pytorch=1.9.0=py3.8_cpu_0", "1.9.0", "cpu"),
        conda_builds.CondaBuild("pytorch==1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0", "1.2.0", "10.0"),
    ]
    # a pin at the end of a sentence ends before its full stop (constructed)
    assert conda_builds.named("It pins pytorch=1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0.")[0].written == (
        "pytorch=1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0"
    )
    # a version without a build string, and pytorch-mutex, are not packages with a build (constructed)
    assert conda_builds.named("pytorch=1.12.0\npytorch-mutex 1.0 cuda pytorch") == []


def test_a_text_is_read_for_its_first_fifty_packages() -> None:
    # the bound of what is read, however often a log repeats its packages (constructed)
    pins = "\n".join(f"pytorch=1.{n}.0=py3.8_cuda11.3_cudnn8.2.0_0" for n in range(60))
    found = conda_builds.named(pins)
    assert len(found) == conda_builds.MAX_NAMED == 50
    assert found[-1].version == "1.49.0"
