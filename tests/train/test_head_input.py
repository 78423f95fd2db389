"""The output head's input is made contiguous at load (pulse/models/loading.py `contiguous_head_input`)."""


def test_the_head_reads_a_contiguous_input_when_only_the_last_logits_are_asked(tiny_model):
    """pulse/models/loading.py contiguous_head_input: a frozen head (LoRA base, merged adapter) on the
    non-contiguous last-position slice made torch copy the head's weight once per sequence."""
    import torch

    from pulse.models.loading import load_model

    model = load_model(str(tiny_model), "bfloat16").eval().requires_grad_(False)
    seen = []
    model.get_output_embeddings().register_forward_pre_hook(
        lambda _m, args: seen.append(args[0].is_contiguous())
    )
    with torch.no_grad():
        out = model(input_ids=torch.randint(0, 100, (3, 9)), logits_to_keep=1)
    assert out.logits.shape[:2] == (3, 1) and seen == [True]
