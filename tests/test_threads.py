"""One BLAS thread limit per call: set once by the outermost block, restored once."""

from __future__ import annotations

import threading

import numpy as np

import biasamp
from biasamp import _threads


class FakeBlas:
    def __init__(self, threads: int) -> None:
        self.num_threads = threads
        self.calls: list[int] = []

    def set_num_threads(self, n: int) -> None:
        self.calls.append(n)
        self.num_threads = n


def test_nested_blocks_set_and_restore_once(monkeypatch):
    fake = FakeBlas(4)
    monkeypatch.setattr(_threads, "_blas_controllers", lambda: [fake])
    with _threads.single_threaded_blas():
        assert fake.num_threads == 1
        with _threads.single_threaded_blas():
            assert fake.num_threads == 1
        assert fake.num_threads == 1  # the inner block restores nothing
    assert fake.num_threads == 4 and fake.calls == [1, 4]


def test_one_thread_already_is_left_alone(monkeypatch):
    fake = FakeBlas(1)
    monkeypatch.setattr(_threads, "_blas_controllers", lambda: [fake])
    with _threads.single_threaded_blas():
        pass
    assert fake.calls == []


def test_blocks_in_threads_restore_after_the_last_one(monkeypatch):
    fake = FakeBlas(2)
    monkeypatch.setattr(_threads, "_blas_controllers", lambda: [fake])
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with _threads.single_threaded_blas():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=worker)
    with _threads.single_threaded_blas():
        thread.start()
        inside.wait(5)
    assert fake.num_threads == 1  # the worker's block is still open
    release.set()
    thread.join()
    assert fake.num_threads == 2 and fake.calls == [1, 2]


def test_a_metric_call_limits_blas_once(monkeypatch):
    fake = FakeBlas(2)
    monkeypatch.setattr(_threads, "_blas_controllers", lambda: [fake])
    rng = np.random.default_rng(0)
    n = 4_000  # products large enough to be limited
    tasks = (rng.random((n, 80)) < 0.1).astype(np.int8)
    groups_train = rng.choice(["m", "w"], n)
    biasamp.directional(
        direction="A->T",
        groups=rng.choice(["m", "w"], n),
        tasks=tasks,
        tasks_pred=tasks[::-1].copy(),
        groups_train=groups_train,
        tasks_train=tasks,
    )
    assert fake.calls.count(1) <= 2  # the training split and the evaluation split
    assert fake.num_threads == 2
