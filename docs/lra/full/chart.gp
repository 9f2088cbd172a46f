# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.
$f0 << EOD
"full (a)" 0.4192 70.1028 7 0.25071
EOD
$f1 << EOD
"local (a)" 4.0628 69.8732 1.90048 0.258649
"bigbird (a)" 2.4977 70.3651 2.29658 0.175276
EOD
$f2 << EOD
"linformer (a)" 2.8621 70.5502 2.09157 0.182094
"performer (a)" 3 69.7282 2.32809 0.278456
"linear (b)" 4.172 63.9335 1.85935 0.217057
EOD
$f3 << EOD
"reformer (b)" 1.9411 63.2328 2.26988 0.456658
"sinkhorn (a)" 3.0333 69.935 2.17487 0.511752
EOD
$f4 << EOD
"mixer (a)" 8.1942 70.3245 1.53665 0.132686
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Attention Zoo on this CPU (preset full): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text and Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [28.0678:75.3035]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full (a)" at 0.4192,70.1028 center offset char 0,2.16 front
set label 2 "local (a)" at 4.0628,69.8732 center offset char 0,1.0721 front
set label 3 "bigbird (a)" at 2.4977,70.3651 center offset char -6.91863,0 front
set label 4 "linformer (a)" at 2.8621,70.5502 center offset char -7.83663,1.11287 front
set label 5 "performer (a)" at 3,69.7282 center offset char 0,-1.16333 front
set label 6 "linear (b)" at 4.172,63.9335 center offset char 0,1.06333 front
set label 7 "reformer (b)" at 1.9411,63.2328 center offset char 0,1.15091 front
set label 8 "sinkhorn (a)" at 3.0333,69.935 center offset char 7.36995,2.13064 front
set arrow from first 3.16761,70.2668 to first 3.98922,72.0329 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer (a)" at 8.1942,70.3245 center offset char 0,0.994486 front
set arrow from graph 0, first 32.639 to graph 1, first 32.639 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 32.639 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Attention Zoo on this CPU (preset full): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text and Image"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:14.7496]
set yrange [28.0678:75.3035]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10)
set label 1 "full (a)" at 0.4192,70.1028 center offset char 0,2.16 front
set label 2 "local (a)" at 4.0628,69.8732 center offset char 0,1.0721 front
set label 3 "bigbird (a)" at 2.4977,70.3651 center offset char -6.91863,0 front
set label 4 "linformer (a)" at 2.8621,70.5502 center offset char -7.83663,1.11287 front
set label 5 "performer (a)" at 3,69.7282 center offset char 0,-1.16333 front
set label 6 "linear (b)" at 4.172,63.9335 center offset char 0,1.06333 front
set label 7 "reformer (b)" at 1.9411,63.2328 center offset char 0,1.15091 front
set label 8 "sinkhorn (a)" at 3.0333,69.935 center offset char 7.36995,2.13064 front
set arrow from first 3.16761,70.2668 to first 3.98922,72.0329 nohead lw 0.8 lc rgb '#999999' back
set label 9 "mixer (a)" at 8.1942,70.3245 center offset char 0,0.994486 front
set arrow from graph 0, first 32.639 to graph 1, first 32.639 nohead dt 2 lc rgb '#888888'
set label 10 "chance (majority class)" at graph 0.01, first 32.639 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle

unset output
