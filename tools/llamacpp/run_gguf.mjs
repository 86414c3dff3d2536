// Runs GGUF models in llama.cpp (node-llama-cpp's prebuilt CPU build, nothing compiled) and
// prints, as JSON, what tools/llamacpp_measure.py compares with transformers.
//
//   node tools/llamacpp/run_gguf.mjs JOBS.json > RESULTS.json
//
// JOBS.json is a list of {name, model, vocabulary, context, tokens, shift?, swa_full?}. For each job it prints the
// natural log of llama.cpp's next-token probability for every vocabulary entry at every
// position (temperature 1, no truncation: the log-softmax of its logits), computed in one
// fresh sequence. With shift = {prefix, erase: [start, end], continuation} it also evaluates
// `prefix`, erases the cached cells start..end-1 (llama.cpp moves the later cells back by
// end - start and re-rotates their keys), evaluates `continuation`, and reports its
// log-probabilities next to a recomputation of prefix-without-the-range + continuation; a
// shift llama.cpp refuses is reported with its error message. The KV cache is float32, so the
// comparison measures the rotation, not a float16 cache.
import { readFileSync } from "node:fs";
import { getLlama } from "node-llama-cpp";

const SAMPLING = { temperature: 1, topK: 0, topP: 1, minP: 0 };

function logProbRows(results, vocabularySize) {
  return results.map((result) => {
    const row = new Array(vocabularySize).fill(null);
    for (const [token, probability] of result.next.probabilities) {
      row[token] = Math.log(probability);
    }
    return row;
  });
}

async function evaluate(sequence, tokens, vocabularySize) {
  const input = tokens.map((token) => [
    token,
    { generateNext: { probabilities: true, options: SAMPLING } },
  ]);
  return logProbRows(await sequence.controlledEvaluate(input), vocabularySize);
}

async function runJob(llama, job) {
  const model = await llama.loadModel({ modelPath: job.model });
  const vocabularySize = job.vocabulary;
  const context = await model.createContext({
    contextSize: job.context,
    batchSize: job.context,
    sequences: 1,
    threads: 2,
    flashAttention: false,
    swaFullCache: job.swa_full ?? false,
    experimentalKvCacheKeyType: "F32",
    experimentalKvCacheValueType: "F32",
  });
  const out = { name: job.name, vocabulary: vocabularySize };
  let sequence = context.getSequence();
  out.logprobs = await evaluate(sequence, job.tokens, out.vocabulary);
  sequence.dispose();
  if (job.shift) {
    const { prefix, erase, continuation } = job.shift;
    sequence = context.getSequence();
    await evaluate(sequence, prefix, out.vocabulary);
    try {
      await sequence.eraseContextTokenRanges([{ start: erase[0], end: erase[1] }]);
      out.shifted = await evaluate(sequence, continuation, out.vocabulary);
      out.shift_error = null;
    } catch (error) {
      out.shifted = null;
      out.shift_error = String(error.message ?? error);
    }
    sequence.dispose();
    sequence = context.getSequence();
    const kept = prefix.slice(0, erase[0]).concat(prefix.slice(erase[1]));
    const recomputed = await evaluate(sequence, kept.concat(continuation), out.vocabulary);
    out.recomputed = recomputed.slice(kept.length);
    sequence.dispose();
  }
  await context.dispose();
  await model.dispose();
  return out;
}

const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const llama = await getLlama({ gpu: false, build: "never", logLevel: process.env.LLAMA_LOG ?? "error" });
const results = [];
for (const job of jobs) {
  process.stderr.write(`${job.name}\n`);
  results.push(await runJob(llama, job));
}
process.stdout.write(JSON.stringify({ llama_cpp_release: llama.llamaCppRelease, results }));
