"""Import a Codex CLI rollout (placeholder while the importer is written)."""


def import_file(path):
    raise NotImplementedError


def sniff(sample):
    return None
