//! Many concurrent calls: each recorded whole (request, then its response), in completion
//! order, with parents that chain through the file.

use crate::rig::{rig, Options};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_recorded_whole_in_completion_order() {
    let mut r = rig(Options::default()).await;
    let r_ref = &r;
    // Call i answers after (N - i) * 60 ms, so they complete in reverse order of sending.
    const N: usize = 8;
    let calls = (0..N).map(|i| async move {
        let stream = i % 2 == 0;
        let body = json!({"model": format!("m-delay{}", (N - i) * 60), "stream": stream,
                          "messages": [{"role": "user", "content": format!("say: call {i}")}]});
        r_ref.call("/openai/v1/chat/completions", &body).await
    });
    let answers = futures_join(calls).await;
    assert!(answers.iter().all(|(s, _)| *s == 200));
    r.stop().await;
    let recs = r.records();
    assert_eq!(recs.len(), 1 + 2 * N);
    let mut order = Vec::new();
    for pair in recs[1..].chunks(2) {
        assert_eq!(pair[0]["kind"], "chat_request");
        // The endpoint the call went to, for `veer replay`.
        assert_eq!(pair[0]["meta"]["endpoint"], "openai.chat_completions");
        assert_eq!(pair[1]["kind"], "chat_response");
        assert_eq!(pair[1]["parent"], pair[0]["id"]);
        let asked = pair[0]["payload"]["messages"][0]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let said = pair[1]["payload"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            asked,
            format!("say: {said}"),
            "a call's records stay together"
        );
        order.push(said);
    }
    let want: Vec<String> = (0..N).rev().map(|i| format!("call {i}")).collect();
    assert_eq!(order, want);
    for i in 1..recs.len() {
        assert_eq!(recs[i]["parent"], recs[i - 1]["id"]);
    }
    let _: Vec<Value> = recs;
}

/// Runs futures concurrently on the current task (no extra crate needed).
async fn futures_join<F: std::future::Future>(fs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in fs {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.unwrap()).collect()
}
